import {overdueMarginS} from '../checkpoints/cadence.js';
import type {CheckpointIndex, Job, RankSet} from './types.js';

// Which job the run dir's checkpoints belong to, and whether it still runs: a save can only be overdue
// while some job is there to make it. A job that ended (or was preempted, and waits in the queue) is never
// OVERDUE, however old its last save.

/** The one job that names the run dir; else the only job; null when there is none, or several could be it. */
export function runDirJob(ranks: RankSet | null): string | null {
	if (!ranks) return null;
	const named = ranks.runDirMatch?.jobs ?? [];
	if (named.length > 0) return named.length === 1 ? named[0]! : null;
	return ranks.jobs.length === 1 ? ranks.jobs[0]!.id : null;
}

/**
 * The index with `overdue` cleared when ranks are sampled and no job runs for the run dir: the one job that
 * names it is gone, or (none or several naming it) no job runs at all. Without rank sampling (`ranks` null)
 * the index is left as it is: nothing says the job ended. The same object when nothing changes.
 */
export function withOverdueJudged(index: CheckpointIndex | null, ranks: RankSet | null): CheckpointIndex | null {
	if (!index?.lastSave?.overdue || !ranks) return index;
	const named = ranks.runDirMatch?.jobs ?? [];
	const running = named.length === 1 ? ranks.jobs.some(job => job.id === named[0]) : ranks.jobs.length > 0;
	const cleared = {...index, lastSave: {...index.lastSave, overdue: false}};
	if (!running) return cleared;
	return startedSinceLastSave(
		index.lastSave,
		index.cadence?.everySeconds ?? null,
		ranks.jobs.find(job => job.id === runDirJob(ranks)),
	)
		? cleared
		: index;
}

/**
 * A job that started after the last periodic save (requeued, restarted from it) has had only its own run time to
 * save in: it is late when that exceeds one cadence and its margin (cadence.ts), not when the old save is old.
 */
function startedSinceLastSave(
	last: NonNullable<CheckpointIndex['lastSave']>,
	everySeconds: number | null,
	job: Job | undefined,
): boolean {
	if (!job || job.ranks.length === 0 || everySeconds === null) return false;
	const started = Math.min(...job.ranks.map(r => r.startedAt));
	const periodic = last.periodicTime ?? last.time;
	if (started <= periodic) return false;
	// now − started, from the index's own clock: ageS is as of now, counted from last.time.
	const runningS = last.ageS + (last.time - started) / 1000;
	return runningS <= everySeconds + overdueMarginS(everySeconds);
}
