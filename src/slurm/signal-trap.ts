import type {SignalName} from '../ranks/signals.js';

// What a batch script's shell does with a signal: its `trap 'CMD' SIG…` line (bash(1), SHELL BUILTIN COMMANDS,
// trap), and what that command is likely to do to the job. Read from the script itself because /proc only says
// that the shell catches the signal, not what it then runs.

export interface Trap {
	/** The trap's command, as written (quotes removed). */
	readonly command: string;
	/** What it is likely to do, in words. */
	readonly effect: string;
}

/** `USR1`, `SIGUSR1`, `10` all name SIGUSR1 in a trap line. */
function namesSignal(word: string, signal: SignalName, number: number): boolean {
	const bare = signal.replace(/^SIG/, '');
	const w = word.toUpperCase();
	return w === bare || w === signal || w === String(number);
}

function unquote(text: string): string {
	const t = text.trim();
	if ((t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"'))) return t.slice(1, -1);
	return t;
}

/** What a trap command is likely to do to the job, from the commands it names. */
function trapEffect(command: string): string {
	if (/\bscontrol\s+requeue/.test(command)) return 'requeues the job: its steps are killed and it starts again';
	if (/\bscancel\b/.test(command)) return 'cancels the job';
	if (command.trim() === '' || command.trim() === '-') return 'nothing: the trap is reset or the signal ignored';
	if (/\bexit\b/.test(command)) return 'ends the batch shell, and with it the job';
	if (/\bkill\b/.test(command)) return 'forwards the signal with kill (to the processes the script names)';
	return `runs \`${command.trim()}\``;
}

/**
 * The last `trap` of `signal` in the script (a later trap replaces an earlier one), or null when the script sets
 * none. `number` is the signal's number (a trap may name it so).
 */
export function findTrap(script: string, signal: SignalName, number: number): Trap | null {
	let found: Trap | null = null;
	for (const raw of script.split('\n')) {
		const line = raw.trim();
		if (line.startsWith('#')) continue;
		// trap 'cmd' SIG1 SIG2 | trap "cmd" SIG | trap func SIG | trap - SIG
		const match = /(?:^|[;&|]\s*)trap\s+('[^']*'|"[^"]*"|\S+)\s+([^;&|#]+)/.exec(line);
		if (!match) continue;
		const words = match[2]!.trim().split(/\s+/);
		if (!words.some(word => namesSignal(word, signal, number))) continue;
		const command = unquote(match[1]!);
		found = {command, effect: trapEffect(command)};
	}
	return found;
}
