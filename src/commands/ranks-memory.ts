import type {JobMemory} from '../core/memory-types.js';
import type {HostMemory, RankSet} from '../core/types.js';
import {JobMemoryReader} from '../ranks/job-memory.js';
import {readHostMemory} from '../system/memory.js';
import {procReader} from '../system/procfs.js';

// `traintop ranks`' memory: each job's ranks and workers by RSS and PSS, read once (a first read reads every PSS at
// once: smaps_rollup's cost, 1–7 ms for a large process, is paid once by a one-shot command), and the host's memory (with the
// job's cgroup limit) that its share is said against.

export interface OneShotMemory {
	readonly jobs: readonly JobMemory[];
	/** null when the host's memory could not be read: the share is then left out, the figures kept. */
	readonly host: HostMemory | null;
}

export async function oneShotMemory(set: RankSet): Promise<OneShotMemory> {
	const jobs = new JobMemoryReader(procReader()).read(set);
	const host = await readHostMemory(set).catch(() => null);
	return {jobs, host};
}
