import type {JobMemory} from './memory-types.js';
import {ramAgainstLimit} from './ram-limit.js';
import type {HostMemory} from './types.js';

// A job's own memory against what the RAM metric is judged by: the job's cgroup limit where it has one (where the OOM
// killer acts), else the host's RAM (core/ram-limit.ts). By PSS, which adds up across a rank and its forked workers;
// by RSS only when PSS is unknown, which overcounts their shared pages (the views say which).

/** Within this share of each other RSS and PSS say the same; beyond it both are shown. */
const PSS_DIFFERS = 0.05;

export interface JobRamShare {
	/** The job's memory as a percent of the basis. */
	readonly percent: number;
	readonly bytes: number;
	readonly by: 'pss' | 'rss';
	/** The job's cgroup, traintop's own (a container), or the host. */
	readonly basis: 'job-cgroup' | 'cgroup' | 'host';
	readonly basisBytes: number;
	/** How full the basis is (the RAM metric's value). */
	readonly basisPercent: number;
}

/** null when neither figure of the job nor the host's memory is known. */
export function jobRamShare(memory: JobMemory, host: HostMemory | null): JobRamShare | null {
	const bytes = memory.pssBytes ?? memory.rssBytes;
	if (bytes === null || host === null) return null;
	const limit = ramAgainstLimit(host);
	if (limit.totalBytes <= 0) return null;
	const scope = host.cgroup?.scope;
	return {
		percent: (bytes / limit.totalBytes) * 100,
		bytes,
		by: memory.pssBytes === null ? 'rss' : 'pss',
		basis: scope === undefined ? 'host' : scope === 'job' ? 'job-cgroup' : 'cgroup',
		basisBytes: limit.totalBytes,
		basisPercent: limit.percent,
	};
}

/** RSS and PSS differ by more than PSS_DIFFERS of the RSS: worth both figures. */
export function pssDiffers(rssBytes: number | null, pssBytes: number | null): boolean {
	return (
		rssBytes !== null && pssBytes !== null && rssBytes > 0 && Math.abs(rssBytes - pssBytes) > PSS_DIFFERS * rssBytes
	);
}
