import {hostname} from 'node:os';
import si from 'systeminformation';
import type {CgroupMemoryReading, HostMemory, RankSet} from '../core/types.js';
import {CgroupMemoryReader} from './cgroup-memory.js';

/** The fields of systeminformation's `mem()` that traintop uses (bytes). */
export interface RawMem {
	readonly total: number;
	readonly available: number;
	readonly swaptotal: number;
	readonly swapused: number;
}

function percentOf(part: number, whole: number): number {
	return whole > 0 ? (part / whole) * 100 : 0;
}

/**
 * RAM as the OOM killer sees it: used = total − available (page cache that can be dropped is not
 * pressure), the same definition as psutil's `virtual_memory().percent` that the seed tool logged.
 * A machine without swap (common on GPU nodes) gets `swap: null` rather than 0 % of 0 bytes.
 */
export function toHostMemory(raw: RawMem): HostMemory {
	const usedBytes = Math.max(0, raw.total - raw.available);
	const swap =
		raw.swaptotal > 0
			? {
					totalBytes: raw.swaptotal,
					usedBytes: raw.swapused,
					percent: percentOf(raw.swapused, raw.swaptotal),
				}
			: null;
	return {
		ram: {
			totalBytes: raw.total,
			usedBytes,
			availableBytes: raw.available,
			percent: percentOf(usedBytes, raw.total),
		},
		swap,
	};
}

/**
 * The host reading with the job's cgroup limit beside it, when that limit is tighter than the host's RAM (a
 * limit at or above it changes nothing: the host runs out first).
 */
export function withCgroupLimit(host: HostMemory, cgroup: CgroupMemoryReading | null): HostMemory {
	return cgroup && cgroup.limitBytes < host.ram.totalBytes ? {...host, cgroup} : host;
}

/** One reader per process: it caches where the ranks' cgroups are between ticks. */
const cgroups = new CgroupMemoryReader();

/**
 * On Linux systeminformation reads /proc/meminfo asynchronously: no process is spawned per tick. `ranks` (the last
 * scan) pick the cgroup whose limit counts: those on this host (a rank elsewhere has a pid of another machine).
 */
export async function readHostMemory(ranks?: RankSet | null): Promise<HostMemory> {
	const here = hostname();
	const pids = (ranks?.ranks ?? []).filter(rank => rank.host === here).map(rank => rank.pid);
	const [raw, cgroup] = await Promise.all([si.mem(), cgroups.read(pids)]);
	return withCgroupLimit(toHostMemory(raw), cgroup);
}
