import type {CheckpointIndex, RankSet} from './types.js';

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
	return running ? index : {...index, lastSave: {...index.lastSave, overdue: false}};
}
