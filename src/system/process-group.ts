// Children in their own process group, so that one signal reaches them and anything they started.
// Why a group: a helper that inherited the child's stdout keeps the pipe open after the child dies, so 'close' never
// fires and the helper lives on; killing the group (process.kill(-pid)) reaches it too.

import {spawn, type ChildProcess} from 'node:child_process';
import {taskSchedulers} from '../scheduler/kinds.js';
import {unwatchGroup, watchGroup} from './orphan-reaper.js';

const IS_WINDOWS = process.platform === 'win32';

/**
 * The variables that make a process a rank to traintop's discovery (ranks/discover.ts): torchrun's, and each
 * scheduler's own global and local rank (scheduler/task.ts `rankVars`), asked when a child starts: a scheduler added
 * in a test is in them too.
 */
function rankVariables(): string[] {
	return ['RANK', 'LOCAL_RANK', ...taskSchedulers().flatMap(one => [one.rankVars.rank, one.rankVars.localRank])];
}

/**
 * The environment for any child traintop starts (nvidia-smi, the scheduler's clients, ssh): without the rank
 * variables. A traintop inside a job (an agent started in a scheduler's step carries its rank variable) must not hand
 * them on: its scheduler client was seen as a rank of the agent's own step, and a wrapper around nvidia-smi would be.
 */
export function helperEnv(env: NodeJS.ProcessEnv | undefined): NodeJS.ProcessEnv {
	const copy = {...(env ?? process.env)};
	for (const name of rankVariables()) delete copy[name];
	return copy;
}

/** What a child's stdin and stdout are; stderr is always a pipe. */
export interface GroupStdio {
	/** 'pipe': the caller writes to it (a notify command reads its notice there); default 'ignore'. */
	readonly stdin?: 'pipe' | 'ignore';
	/** Default 'pipe'. */
	readonly stdout?: 'pipe' | 'ignore';
}

/** Starts `command` (argv array, no shell) as the leader of a new process group, stdout and stderr piped by default. */
export function spawnInOwnGroup(
	command: string,
	args: readonly string[],
	env?: NodeJS.ProcessEnv,
	stdio: GroupStdio = {},
): ChildProcess {
	// On Windows `detached` means a new console window, and there are no process groups to signal.
	const child = spawn(command, args, {
		detached: !IS_WINDOWS,
		stdio: [stdio.stdin ?? 'ignore', stdio.stdout ?? 'pipe', 'pipe'],
		env: helperEnv(env),
		windowsHide: true,
	});
	// A pipe error must not become an uncaught exception in traintop; the child's 'exit' tells what happened (a child
	// that does not read its stdin exits before the write: EPIPE is its right, not traintop's crash).
	child.stdin?.on('error', () => {});
	child.stdout?.on('error', () => {});
	child.stderr?.on('error', () => {});
	// Ended with traintop even if traintop is SIGKILLed while the child hangs (orphan-reaper.ts).
	if (!IS_WINDOWS) watchGroup(child.pid);
	return child;
}

export function hasExited(child: ChildProcess): boolean {
	return child.exitCode !== null || child.signalCode !== null;
}

/** Sends `signal` to the child's whole group. Never throws: a group that is already gone is the goal. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	const pid = child.pid;
	if (pid === undefined) return;
	try {
		if (IS_WINDOWS) child.kill(signal);
		else process.kill(-pid, signal);
	} catch {
		// ESRCH: nothing left in the group. EPERM cannot happen for our own children.
	}
}

/** Resolves true once the child has exited, false after `timeoutMs` (never, when no timeout is given). */
export function waitForExit(child: ChildProcess, timeoutMs?: number): Promise<boolean> {
	if (hasExited(child) || child.pid === undefined) return Promise.resolve(true);
	return new Promise(resolve => {
		const timer = timeoutMs === undefined ? null : setTimeout(() => finish(false), timeoutMs);
		const onExit = (): void => finish(true);
		function finish(exited: boolean): void {
			if (timer !== null) clearTimeout(timer);
			child.off('exit', onExit);
			resolve(exited);
		}
		child.once('exit', onExit);
	});
}

/**
 * After 'exit', resolves true when the child's pipes have closed too, false after `graceMs`: a grandchild still
 * holding them keeps 'close' from firing, so callers must never wait for 'close' alone.
 */
export function waitForOutputEnd(child: ChildProcess, graceMs: number): Promise<boolean> {
	const streams = [child.stdout, child.stderr].filter(stream => stream !== null);
	if (streams.every(stream => stream.readableEnded || stream.destroyed)) return Promise.resolve(true);
	return new Promise(resolve => {
		const timer = setTimeout(() => finish(false), graceMs);
		const onClose = (): void => finish(true);
		function finish(closed: boolean): void {
			clearTimeout(timer);
			child.off('close', onClose);
			resolve(closed);
		}
		child.once('close', onClose);
	});
}

/**
 * Done with the child: frees our ends of the pipes so a stray holder cannot keep the event loop alive (it gets EPIPE
 * if it writes), and takes its group off the reaper's list, so that a number the kernel may reuse is never signalled.
 */
export function releasePipes(child: ChildProcess): void {
	child.stdout?.destroy();
	child.stderr?.destroy();
	unwatchGroup(child.pid);
}

/**
 * Ends the child's whole group: SIGTERM, then SIGKILL after `graceMs`. Resolves on the leader's 'exit' plus a short
 * grace (during which the pipes get a chance to close); if they stay open, something else in the group holds them and
 * the group gets SIGKILL. Resolves false when even SIGKILL did not end the leader within `graceMs` (a process stuck in
 * the driver, state D), so that shutting down can never hang on it.
 */
export async function terminateGroup(child: ChildProcess, graceMs: number, afterExitGraceMs = 50): Promise<boolean> {
	if (child.pid === undefined) return true;
	if (!hasExited(child)) {
		signalGroup(child, 'SIGTERM');
		if (!(await waitForExit(child, graceMs))) {
			signalGroup(child, 'SIGKILL');
			if (!(await waitForExit(child, graceMs))) return false;
		}
	}
	await sweepGroup(child, afterExitGraceMs);
	return true;
}

/**
 * For a leader that has exited: if its pipes do not close within `graceMs`, a member of its group still holds them,
 * so SIGKILL the group. Only then: once the group is empty its id could in principle be reused.
 */
export async function sweepGroup(child: ChildProcess, graceMs: number): Promise<void> {
	if (!(await waitForOutputEnd(child, graceMs))) signalGroup(child, 'SIGKILL');
	releasePipes(child);
}
