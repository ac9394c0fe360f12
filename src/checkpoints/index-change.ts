import type {Checkpoint, CheckpointIndex} from '../core/types.js';

// What counts as a change of a run dir's index: for its subscribers (a new index worth publishing) and for the
// save awaits (a checkpoint new since a signal was sent).

/** A checkpoint's time may be truncated to the second (names, mtimes): the awaits accept this much before sinceMs. */
export const TIME_SLACK_MS = 1000;

/** What the awaits count as new: complete, not complete when the wait began, written since sinceMs (less the slack). */
export function isNew(c: Checkpoint, before: ReadonlySet<string>, sinceMs: number): boolean {
	return c.status === 'complete' && !before.has(c.path) && c.time >= sinceMs - TIME_SLACK_MS;
}

/** What subscribers are told about: the index without the parts that change with the clock or every byte written. */
export function indexSignature(index: CheckpointIndex): string {
	const {scannedAt: _at, lastSave, disk, ...rest} = index;
	return JSON.stringify({
		...rest,
		lastSave: lastSave && {time: lastSave.time, medianIntervalS: lastSave.medianIntervalS},
		disk: {avg: disk.avgCheckpointBytes, saves: disk.savesUntilFull},
	});
}
