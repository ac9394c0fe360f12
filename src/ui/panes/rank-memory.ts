import {pssDiffers} from '../../core/job-memory-share.js';
import type {JobMemory, RankMemory} from '../../core/memory-types.js';
import type {HostMemory, RankProcess, Snapshot} from '../../core/types.js';

// The ranks pane's memory: each job's own (a line under its header) with the host's memory its share is said against,
// each rank row's (the rank with its DataLoader workers), and whether the rows need a PSS column: only where some
// rank's PSS is more than 5 % off its RSS (forked workers sharing its pages), since an equal figure beside the RSS
// would be a column of noise.

export interface PaneMemory {
	readonly jobs: readonly JobMemory[];
	readonly host: HostMemory | null;
	/** The snapshot's time: when a growing job reaches the RAM threshold is said in its clock. */
	readonly now?: number;
}

/** The snapshot's job memory and host memory; null while it has none (an older agent, no rank scan yet). */
export function paneMemory(snapshot: Snapshot): PaneMemory | null {
	const jobs = snapshot.jobMemory ?? [];
	return jobs.length === 0 ? null : {jobs, host: snapshot.memory, now: snapshot.time};
}

export interface RowMemory {
	/** Each rank's memory by its pid (one node's ranks: pids are unique on it). */
	readonly of: ReadonlyMap<number, RankMemory>;
	/** A PSS column in the rows. */
	readonly pss: boolean;
}

const NONE: RowMemory = {of: new Map(), pss: false};

/** The rows' memory; a PSS column in wide rows when a rank shown has a PSS that differs from its RSS. */
export function rowMemory(compact: boolean, shown: readonly RankProcess[], memory: PaneMemory | null): RowMemory {
	if (memory === null) return NONE;
	const of = new Map(memory.jobs.flatMap(job => job.ranks.map(rank => [rank.pid, rank] as const)));
	const differs = (rank: RankProcess) => {
		const own = of.get(rank.pid);
		return own !== undefined && pssDiffers(own.rssBytes, own.pssBytes);
	};
	return {of, pss: !compact && shown.some(differs)};
}
