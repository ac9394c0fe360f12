import {constants} from 'node:os';

// Signal names, numbers and default actions. Numbers come from Node's os.constants for this platform
// (x86-64 and arm64 Linux agree; Alpha/MIPS/SPARC differ, which is why nothing is hard-coded).

export type SignalName = keyof typeof constants.signals;

/** The signals whose state traintop shows for every rank: what preemption and save tooling uses. */
export const WATCHED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGUSR1', 'SIGUSR2', 'SIGCONT', 'SIGHUP', 'SIGQUIT'] as const;
export type WatchedSignal = (typeof WATCHED_SIGNALS)[number];

/** Default action "ignore", "continue" or "stop" (signal(7)); every other signal's default ends the process. */
const NON_TERMINATING = new Set<string>([
	'SIGCHLD',
	'SIGCONT',
	'SIGURG',
	'SIGWINCH',
	'SIGSTOP',
	'SIGTSTP',
	'SIGTTIN',
	'SIGTTOU',
]);

/** Default action "stop" (signal(7)): the process stays stopped until a SIGCONT. SIGSTOP cannot be handled at all. */
const STOPPING = new Set<string>(['SIGSTOP', 'SIGTSTP', 'SIGTTIN', 'SIGTTOU']);

export function signalNumber(name: SignalName): number {
	return constants.signals[name];
}

/** Does the signal's default action (no handler installed) end the process? */
export function terminatesByDefault(name: SignalName): boolean {
	return !NON_TERMINATING.has(name);
}

/** Does the signal's default action (no handler installed) stop the process until SIGCONT? */
export function stopsByDefault(name: SignalName): boolean {
	return STOPPING.has(name);
}

/**
 * `SIGUSR2`, `USR2`, `usr2` or `12` → `SIGUSR2`; null for anything that is not a signal here.
 * (Real-time signals are not offered: no training tool uses them.)
 */
export function parseSignalName(text: string): SignalName | null {
	const trimmed = text.trim();
	if (/^\d+$/.test(trimmed)) {
		const number = Number(trimmed);
		const match = (Object.entries(constants.signals) as [SignalName, number][]).find(([, n]) => n === number);
		return match ? match[0] : null;
	}
	const upper = trimmed.toUpperCase();
	const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
	return name in constants.signals ? (name as SignalName) : null;
}
