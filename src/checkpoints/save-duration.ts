import type {Checkpoint, CheckpointIndex} from '../core/checkpoint-types.js';
import type {SaveTimes} from '../core/readiness-types.js';

// How long the job's last save took to write, for the time-at-risk line: the warning signal's lead must cover at
// least that much. Read from the files themselves (scan.ts writeSeconds), so it holds for every save, not only
// those traintop asked for.

export interface SaveDuration {
	readonly seconds: number;
	/** The checkpoint it was measured on. */
	readonly name: string;
}

/**
 * The newest complete save's write time. `last` and `best` are copies or marks of another save (their times are
 * the copy's), so they are passed over. A span as long as the usual interval is not one save: a file rewritten in
 * place keeps the birth time of its first save. Null when no save has a measurable span.
 */
export function lastSaveDuration(index: CheckpointIndex | null): SaveDuration | null {
	let newest: {time: number; seconds: number; name: string} | null = null;
	for (const c of timedSaves(index))
		if (newest === null || c.time >= newest.time) newest = {time: c.time, seconds: c.seconds, name: c.name};
	return newest && {seconds: newest.seconds, name: newest.name};
}

/** The complete saves with a measured write time, as lastSaveDuration weighs them. */
function timedSaves(index: CheckpointIndex | null): {time: number; seconds: number; name: string}[] {
	if (index === null) return [];
	const usual = index.lastSave?.medianIntervalS ?? null;
	const timed = (c: Checkpoint): c is Checkpoint & {writeS: number} =>
		c.status === 'complete' && c.writeS !== null && c.kind !== 'last' && c.kind !== 'best';
	return index.checkpoints
		.filter(timed)
		.filter(c => usual === null || c.writeS < usual)
		.map(c => ({time: c.time, seconds: c.writeS, name: c.name}));
}

/**
 * Every measured save's write time: the median, the slowest (what a preemption must fit in) and how many. Null when
 * no save has a measurable span.
 */
export function saveTimes(index: CheckpointIndex | null): SaveTimes | null {
	const saves = timedSaves(index);
	if (saves.length === 0) return null;
	const sorted = saves.map(s => s.seconds).sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	const p50 = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
	const slowest = saves.reduce((a, b) => (b.seconds > a.seconds ? b : a));
	return {p50, max: slowest.seconds, samples: saves.length, slowest: slowest.name};
}

/** Checkpoints were begun and none completed: a partial one that is not the newest (abandoned), and nothing complete. */
export function savesNeverComplete(index: CheckpointIndex | null): boolean {
	if (index === null || index.checkpoints.some(c => c.status === 'complete')) return false;
	const partial = index.checkpoints.filter(c => c.status === 'partial');
	return partial.length >= 2;
}
