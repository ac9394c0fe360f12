// Which ranks a signal key acts on, and how marking works: both in one place so that the reducer, the
// ranks pane's title and the confirm box cannot disagree. The safety rule: a signal goes to the ranks of
// ONE job, the job of the rank under the cursor; marks never span two jobs.

/** Which process a rank row is: its pid and its start time (pids are reused; the pair is not). */
export interface ProcessIdentity {
	readonly pid: number;
	/** Clock ticks after boot (/proc/PID/stat field 22), as RankProcess.startTime. */
	readonly startTime: number;
}

/** What targeting needs to know of a rank row: its identity and its job (RankProcess has both). */
export interface RankRef extends ProcessIdentity {
	/** Job.id */
	readonly job: string;
}

export interface Target {
	/** The job the signal goes to. */
	readonly job: string;
	/** Its ranks that are targets, in display order. */
	readonly pids: readonly number[];
	/**
	 * The same ranks as the processes they were when the target was taken: what a confirm box sends to. A pid that
	 * belongs to another process by the time of the send (another start time) is gone, never a new target.
	 */
	readonly identities: readonly ProcessIdentity[];
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
	const ofJob = ranks.filter(r => r.job === at.job);
	const chosen = ofJob.filter(r => marked.has(r.pid));
	const target = (list: readonly RankRef[], isMarked: boolean): Target => ({
		job: at.job,
		pids: list.map(r => r.pid),
		identities: list.map(r => ({pid: r.pid, startTime: r.startTime})),
		marked: isMarked,
		of: ofJob.length,
	});
	return chosen.length > 0 ? target(chosen, true) : target(ofJob, false);
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
