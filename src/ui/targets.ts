// Which ranks a signal key acts on, and how marking works: both in one place so that the reducer, the
// ranks pane's title and the confirm box cannot disagree. The safety rule: a signal goes to the ranks of
// ONE job, the job of the rank under the cursor; marks never span two jobs.

/** What targeting needs to know of a rank row: its pid and its job (RankProcess has both). */
export interface RankRef {
	readonly pid: number;
	/** Job.id */
	readonly job: string;
}

export interface Target {
	/** The job the signal goes to. */
	readonly job: string;
	/** Its ranks that are targets, in display order. */
	readonly pids: readonly number[];
	/** True when these are the marked ranks of the job, false when they are all of its ranks. */
	readonly marked: boolean;
	/** Ranks the job has. */
	readonly of: number;
}

const clamp = (value: number, count: number): number => Math.max(0, Math.min(value, count - 1));

/**
 * The job of the cursor's rank and its targets: its marked ranks when any is marked, else all of its
 * ranks. Marks in other jobs never make a target. null when there is no rank at all.
 */
export function targetOf(ranks: readonly RankRef[], cursor: number, marked: ReadonlySet<number>): Target | null {
	const at = ranks[clamp(cursor, ranks.length)];
	if (at === undefined) return null;
	const ofJob = ranks.filter(r => r.job === at.job).map(r => r.pid);
	const chosen = ofJob.filter(pid => marked.has(pid));
	return chosen.length > 0
		? {job: at.job, pids: chosen, marked: true, of: ofJob.length}
		: {job: at.job, pids: ofJob, marked: false, of: ofJob.length};
}

/**
 * The marks after space on the cursor's rank: toggled, when the other marks are of the same job; the
 * rank alone, when they are of another job (marks are a target list, and a target list is one job's).
 * Marks of ranks no longer shown are dropped either way.
 */
export function toggleMark(ranks: readonly RankRef[], cursor: number, marked: ReadonlySet<number>): Set<number> {
	const at = ranks[clamp(cursor, ranks.length)];
	if (at === undefined) return new Set(marked);
	const jobOf = new Map(ranks.map(r => [r.pid, r.job]));
	const kept = [...marked].filter(pid => jobOf.get(pid) === at.job);
	const otherJob = [...marked].some(pid => jobOf.has(pid) && jobOf.get(pid) !== at.job);
	if (otherJob) return new Set([at.pid]);
	const next = new Set(kept);
	if (next.has(at.pid)) next.delete(at.pid);
	else next.add(at.pid);
	return next;
}
