import {parseStat} from '../system/procfs.js';
import {CLOCK_TICKS_PER_SECOND} from './proc-clock.js';

// The kernel's view of where a process is: its state and wait channel, each thread's, each thread's CPU time, and its
// kernel stack where the kernel shows it. Pure parsers over /proc text here; kernel-view.ts reads the files. All of it
// is read from /proc without touching the process: no signal, no ptrace.

/** One thread as /proc/PID/task/TID shows it at one read. */
export interface ThreadSample {
	readonly tid: number;
	/** /proc/PID/task/TID/comm: the thread's 15-character name (pt_autograd_0, python3…). */
	readonly name: string;
	/** R, S, D, T, t, Z… (stat field 3). */
	readonly state: string;
	/** The kernel function it sleeps in (`futex_do_wait`, `hrtimer_nanosleep`); null while it runs (wchan is "0"). */
	readonly wchan: string | null;
	/** User + system CPU time, seconds (stat fields 14 and 15). */
	readonly cpuSeconds: number;
}

/** A thread over two reads: its CPU share between them (of one core); null where it was not there at the first. */
export interface ThreadView extends ThreadSample {
	readonly cpuPercent: number | null;
}

/**
 * /proc/PID/wchan: the symbol the task sleeps in; "0" (older kernels) or "" while it runs or when it cannot be
 * resolved. A symbol is shown as the kernel names it, but never as more than a symbol's characters.
 */
export function parseWchan(text: string | null): string | null {
	const name = text?.trim() ?? '';
	return name === '' || name === '0' || !/^[\w.$]+$/.test(name) ? null : name;
}

/**
 * /proc/PID/stack: one frame a line, `[<0>] hrtimer_nanosleep+0xb5/0x130` (the address is zeroed for anyone but a
 * kptr_restrict reader); the frames' `symbol+offset/size`, innermost first.
 */
export function parseKernelStack(text: string): string[] {
	return text
		.split('\n')
		.map(line => line.replace(/^\[<[0-9a-fx]+>\]\s*/i, '').trim())
		.filter(line => line !== '');
}

/** One thread from its stat, comm and wchan text; null when the stat is not a stat line (the thread ended). */
export function threadSample(stat: string | null, comm: string | null, wchan: string | null): ThreadSample | null {
	const parsed = stat === null ? null : parseStat(stat);
	if (parsed === null) return null;
	return {
		tid: parsed.pid,
		// comm ends with a newline; stat's own comm is the same name where the comm file was not read.
		name: comm === null ? parsed.comm : comm.replace(/\n$/, ''),
		state: parsed.state,
		wchan: parseWchan(wchan),
		cpuSeconds: (parsed.utime + parsed.stime) / CLOCK_TICKS_PER_SECOND,
	};
}

/**
 * The threads of the second read with their CPU share since the first (`elapsedMs` apart), the main thread (tid =
 * pid) first, then by tid. A share is of one core, as `top` shows it; a thread that is new has none.
 */
export function threadViews(
	pid: number,
	before: readonly ThreadSample[],
	after: readonly ThreadSample[],
	elapsedMs: number,
): ThreadView[] {
	const was = new Map(before.map(thread => [thread.tid, thread]));
	return after
		.map(thread => {
			const first = was.get(thread.tid);
			const cpuPercent =
				first === undefined || elapsedMs <= 0
					? null
					: Math.max(0, ((thread.cpuSeconds - first.cpuSeconds) * 100_000) / elapsedMs);
			return {...thread, cpuPercent};
		})
		.sort((a, b) => (a.tid === pid ? -1 : b.tid === pid ? 1 : a.tid - b.tid));
}
