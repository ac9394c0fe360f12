import si from 'systeminformation';
import type {HostMemory} from '../core/types.js';

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

/** On Linux systeminformation reads /proc/meminfo asynchronously: no process is spawned per tick. */
export async function readHostMemory(): Promise<HostMemory> {
	return toHostMemory(await si.mem());
}
