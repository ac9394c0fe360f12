import type {CheckpointIndex} from '../core/types.js';
import {formatBytes} from '../format/units.js';

// Will the run dir's disk take the saves the job is about to make? A resumed job writes checkpoints the size of
// its newest complete one. Under keep-N it grows until N are kept, and each save is written before the oldest is
// pruned (retention.ts: usage is flat once one checkpoint of headroom is free), so it needs
//   newest × (max(0, keep − kept) + 1)
// free. Without a keep-N every save adds one: it needs room for the next save at least.

export interface DiskNeed {
	readonly status: 'fits' | 'will_not_fit' | 'unknown';
	readonly freeBytes: number | null;
	/** The newest complete checkpoint: the size of a save. */
	readonly checkpointName: string | null;
	readonly checkpointBytes: number | null;
	readonly keep: number | null;
	/** Complete checkpoints counted against keep. */
	readonly kept: number;
	/** Saves the rule asks room for. */
	readonly saves: number | null;
	readonly neededBytes: number | null;
	/** The rule with its numbers, or why it cannot be applied. */
	readonly rule: string;
}

export function diskNeed(index: CheckpointIndex): DiskNeed {
	const freeBytes = index.disk.freeBytes;
	const {keep, count: kept} = index.retention;
	const complete = index.checkpoints.filter(c => c.status === 'complete');
	const newest = complete.reduce<(typeof complete)[number] | null>(
		(a, c) => (a === null || c.time > a.time ? c : a),
		null,
	);
	const base = {freeBytes, keep, kept};
	if (newest === null) {
		return {
			...base,
			status: 'unknown',
			checkpointName: null,
			checkpointBytes: null,
			saves: null,
			neededBytes: null,
			rule: 'no complete checkpoint yet: the size of a save is not known',
		};
	}
	const saves = keep === null ? 1 : Math.max(0, keep - kept) + 1;
	const neededBytes = newest.bytes * saves;
	const size = `newest checkpoint ${formatBytes(newest.bytes)}`;
	const rule =
		keep === null
			? `${size} × 1 (no keep-N known: every save adds one; --keep N sets it)`
			: `${size} × (keep ${keep} − ${kept} kept + 1 being written) = ${formatBytes(neededBytes)}`;
	const status = freeBytes === null ? 'unknown' : freeBytes >= neededBytes ? 'fits' : 'will_not_fit';
	return {...base, status, checkpointName: newest.name, checkpointBytes: newest.bytes, saves, neededBytes, rule};
}
