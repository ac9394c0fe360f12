import type {CheckpointIndex, SaveCadence, ScannedCheckpoint} from '../core/types.js';

// The index's last save: its time, the median gap between the periodic saves, its age and whether the next one is
// overdue as of a given `now`. Pure: the clock is given.

function median(values: readonly number[]): number | null {
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Saves that make up the job's cadence: periodic ones, and those whose layout records no kind (HF checkpoint-N dirs
 * and the like are periodic in practice). A manual or emergency save comes whenever someone asks or the job is
 * preempted, so a gap to one says nothing about the schedule; `last` is a copy of another save and `best` a mark on
 * one, so their times would add zero gaps.
 */
function isCadence(c: ScannedCheckpoint): boolean {
	return c.kind === 'periodic' || c.kind === 'unknown';
}

export function lastSave(
	complete: readonly ScannedCheckpoint[],
	now: number,
	cadence: SaveCadence,
): CheckpointIndex['lastSave'] {
	if (complete.length === 0) return null;
	const newest = Math.max(...complete.map(c => c.time));
	const times = complete
		.filter(isCadence)
		.map(c => c.time)
		.sort((a, b) => a - b);
	const gaps: number[] = [];
	for (let i = 1; i < times.length; i++) gaps.push((times[i]! - times[i - 1]!) / 1000);
	const last = {time: newest, medianIntervalS: median(gaps), periodicTime: times.at(-1) ?? null};
	return lastSaveAt({...last, overdueAt: cadence.overdueAt}, now);
}

/**
 * The last save's age and whether the next periodic save is overdue, as of `now`. The age grows while nothing is
 * written — the very case the overdue warning is for — so views refresh it with the clock instead of waiting for a
 * rescan that no file event will trigger. Overdue once `overdueAt` (the cadence's expected time of the next periodic
 * save plus its margin, cadence.ts) has passed; never while it is null (learning, or the job stopping on our signal).
 * A lastSave without overdueAt (an index built by hand) keeps the overdue it has.
 */
export function lastSaveAt(
	last: {
		readonly time: number;
		readonly medianIntervalS: number | null;
		readonly periodicTime?: number | null;
		readonly overdueAt?: number | null;
		readonly overdue?: boolean;
	},
	now: number,
): NonNullable<CheckpointIndex['lastSave']> {
	// Clock skew between the writer (another node, NFS) and us can put a save in the future: its age is then 0.
	const ageS = Math.max(0, (now - last.time) / 1000);
	const periodicTime = last.periodicTime === undefined ? last.time : last.periodicTime;
	const {overdueAt} = last;
	const overdue = overdueAt === undefined ? (last.overdue ?? false) : overdueAt !== null && now > overdueAt;
	const judged = overdueAt === undefined ? {} : {overdueAt};
	return {time: last.time, ageS, medianIntervalS: last.medianIntervalS, periodicTime, overdue, ...judged};
}
