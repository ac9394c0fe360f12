import type {RankProcess} from './job-types.js';
import type {ProcessActivity, ProcessWait} from './progress-types.js';

// What a rank or worker is doing at a scan, from its state letter, its share of a core and its wait channel. The
// wait channels a collective blocks in, as the kernel names them: a futex wait (gloo's and NCCL's condition
// variables, a blocking CUDA synchronise: futex_wait_queue_me before Linux 5.16, futex_wait_queue after,
// futex_do_wait on 6.18, where this was recorded) or an epoll wait (gloo's and NCCL's socket loops).

/**
 * A share of a core at or above which a process computes, over the trailing window. Measured here (torch 1.13, gloo,
 * 2 cores): a rank blocked in all_reduce used 1–3 clock ticks in 10 s (0.1–0.3 %); the smallest training rank of the
 * tests (a 16×1 linear layer, a step every 50 ms) used 4 %; a real one uses a whole core.
 */
export const COMPUTING_PERCENT = 2;

const COLLECTIVE_WAIT = /^(futex|ep_poll|do_epoll_wait)/;

/** A wait channel a collective (or any condition wait) blocks in. */
export function isCollectiveWait(wchan: string | null): boolean {
	return wchan !== null && COLLECTIVE_WAIT.test(wchan);
}

/** What the state letter alone says; null when it takes the CPU and wait channel to tell. */
function stateActivity(state: string): ProcessActivity | null {
	if (state === 'Z' || state === 'X') return 'zombie';
	if (state === 'T' || state === 't') return 'stopped';
	if (state === 'D') return 'disk';
	return null;
}

/** A rank's activity: `computing` is judged by the caller over a trailing window (see progress-cpu.ts). */
export function rankActivity(rank: RankProcess, computing: boolean, wchan: string | null): ProcessActivity {
	const byState = stateActivity(rank.state);
	if (byState) return byState;
	if (computing) return 'computing';
	return isCollectiveWait(wchan) ? 'waiting' : 'sleeping';
}

/** A worker's activity from one read: it computes when it used a share of a core since the previous read. */
export function workerActivity(worker: ProcessWait): ProcessActivity {
	const byState = stateActivity(worker.state);
	if (byState) return byState;
	if (worker.cpuPercent !== null && worker.cpuPercent >= COMPUTING_PERCENT) return 'computing';
	return isCollectiveWait(worker.wchan) ? 'waiting' : 'sleeping';
}
