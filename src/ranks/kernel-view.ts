import type {ProcReader} from '../system/procfs.js';
import {
	parseKernelStack,
	parseWchan,
	type ThreadSample,
	type ThreadView,
	threadSample,
	threadViews,
} from './thread-view.js';

// The kernel's view of one process, read from /proc (thread-view.ts parses it): two reads of its threads a moment
// apart give each thread's CPU share; its kernel stack is read once. Read-only: /proc files, never a signal or ptrace.

/**
 * Why /proc/PID/stack was not read: `not-root`, the kernel shows it to CAP_SYS_ADMIN only (fs/proc/base.c,
 * proc_pid_stack, since Linux 4.20: "proc: restrict kernel stack dumps to root"); `unreadable`, read as root and
 * still not there (a kernel without CONFIG_STACKTRACE, or the process ended).
 */
export type StackProblem = 'not-root' | 'unreadable';

export interface KernelView {
	readonly pid: number;
	/** The process's state (its stat), and the wait channel of its main thread (/proc/PID/wchan). */
	readonly state: string;
	readonly wchan: string | null;
	/** Every thread, the main thread first. */
	readonly threads: readonly ThreadView[];
	/** The main thread's kernel stack, innermost first; null with `stackProblem`. */
	readonly stack: readonly string[] | null;
	readonly stackProblem: StackProblem | null;
}

/** One read of a process's threads; null when the process is gone (or its task list cannot be read). */
export function sampleThreads(proc: ProcReader, pid: number): ThreadSample[] | null {
	if (!proc.tasks || !proc.file) return null;
	const tids = proc.tasks(pid);
	if (tids === null) return null;
	return tids.flatMap(tid => {
		const task = `task/${tid}`;
		const one = threadSample(
			proc.file!(pid, `${task}/stat`),
			proc.file!(pid, `${task}/comm`),
			proc.file!(pid, `${task}/wchan`),
		);
		return one === null ? [] : [one];
	});
}

/** Whether this process may read another's kernel stack: root (CAP_SYS_ADMIN goes with it here). */
const isRoot = (): boolean => process.geteuid?.() === 0;

/**
 * The kernel view of `pid` now, its threads' CPU share measured from `before` (sampleThreads `elapsedMs` ago); null
 * when the process is gone.
 */
export function readKernelView(
	proc: ProcReader,
	pid: number,
	before: readonly ThreadSample[] | null,
	elapsedMs: number,
): KernelView | null {
	const stat = proc.stat(pid);
	const after = sampleThreads(proc, pid);
	if (stat === null || after === null) return null;
	const stackText = proc.file?.(pid, 'stack') ?? null;
	return {
		pid,
		state: stat.state,
		wchan: parseWchan(proc.file?.(pid, 'wchan') ?? null),
		threads: threadViews(pid, before ?? [], after, before === null ? 0 : elapsedMs),
		stack: stackText === null ? null : parseKernelStack(stackText),
		stackProblem: stackText !== null ? null : isRoot() ? 'unreadable' : 'not-root',
	};
}
