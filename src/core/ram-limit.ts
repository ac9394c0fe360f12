import {formatBytes} from '../format/units.js';
import type {CgroupMemoryReading, HostMemory} from './types.js';

// Which RAM the `ram` metric is judged against: the job's cgroup limit when it has one (the OOM killer acts
// there: a gauge against the host's total shows 40 % while the job is being killed), else the host's RAM.

export interface RamAgainstLimit {
	readonly percent: number;
	readonly usedBytes: number;
	/** The limit: the cgroup's, else the host's total. */
	readonly totalBytes: number;
}

export function ramAgainstLimit(memory: HostMemory): RamAgainstLimit {
	const {cgroup, ram} = memory;
	return cgroup
		? {percent: cgroup.percent, usedBytes: cgroup.usedBytes, totalBytes: cgroup.limitBytes}
		: {percent: ram.percent, usedBytes: ram.usedBytes, totalBytes: ram.totalBytes};
}

/** `job cgroup limit 64.0 GiB` (the ranks' cgroup) or `cgroup limit 8.0 GiB` (traintop's own: a container). */
export function cgroupLimitWords(scope: CgroupMemoryReading['scope'], limitBytes: number): string {
	return `${scope === 'job' ? 'job ' : ''}cgroup limit ${formatBytes(limitBytes)}`;
}
