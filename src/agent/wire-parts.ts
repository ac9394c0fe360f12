import {lastSaveAt} from '../checkpoints/retention.js';
import type {CheckpointIndex, RankSet} from '../core/types.js';
import {jobToWire, jobWithout, rankWithout, taskWireKeys, type WireJob, type WireRank} from './wire-tasks.js';

// What the slow parts of a snapshot cost on the wire, kept to what changed. Measured on the demo job (8 ranks, 50
// checkpoints): the checkpoint index is renewed every second only because its last save's age grew (17 KB a second
// per node for nothing the receiver cannot work out itself), and a rank set carries every rank twice (in `ranks` and
// in its job's `ranks`: 10 KB each time it is sent). At 64 nodes that was 2.6 MB of JSON a second to parse.

/**
 * The same index but for the last save's age (and the overdue flag that follows from it): nothing the receiver
 * needs again, it ages the last save by the node's own clock (freshLastSave).
 */
export function sameButAge(sent: CheckpointIndex | null, now: CheckpointIndex | null): boolean {
	if (sent === now) return true;
	if (sent === null || now === null) return false;
	for (const key of Object.keys(now) as (keyof CheckpointIndex)[]) {
		if (key !== 'lastSave' && sent[key] !== now[key]) return false;
	}
	const [a, b] = [sent.lastSave, now.lastSave];
	if (a === null || b === null) return a === b;
	return (
		a.time === b.time &&
		a.medianIntervalS === b.medianIntervalS &&
		a.periodicTime === b.periodicTime &&
		a.overdueAt === b.overdueAt
	);
}

/**
 * A carried-over index with its last save aged to `time` (the node's clock, epoch ms): a new object only when the
 * age in whole seconds or the overdue flag changed, as the one-node watcher renews it (checkpoints/watch.ts).
 */
export function freshLastSave(index: CheckpointIndex | null, time: number): CheckpointIndex | null {
	if (!index?.lastSave) return index;
	const fresh = lastSaveAt(index.lastSave, time);
	if (fresh.overdue === index.lastSave.overdue && Math.floor(fresh.ageS) === Math.floor(index.lastSave.ageS))
		return index;
	return {...index, lastSave: fresh};
}

/**
 * A rank set as sent: its ranks once, in their jobs (`ranks` is every job's ranks in job order, job-types.ts), each
 * rank's and job's scheduler task as agent/wire-tasks.ts writes it.
 */
export type WireRankSet = Omit<RankSet, 'ranks' | 'jobs'> & {
	readonly jobs: readonly WireJob[];
	readonly ranks?: readonly WireRank[];
};

export function slimRankSet(set: RankSet | null): WireRankSet | null {
	if (set === null) return null;
	const {ranks: _ranks, jobs, ...rest} = set;
	return {...rest, jobs: jobs.map(jobToWire)};
}

/** The rank set as received: `ranks` rebuilt from the jobs when the sender left it out. */
export function fullRankSet(set: WireRankSet | null): RankSet | null {
	if (set === null) return null;
	const keys = taskWireKeys();
	const jobs = set.jobs.map(job => jobWithout(job, keys));
	const ranks = set.ranks ? set.ranks.map(rank => rankWithout(rank, keys)) : jobs.flatMap(job => job.ranks);
	return {...set, jobs, ranks};
}
