import type {CheckpointIndex} from '../core/checkpoint-types.js';

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
	if (index === null) return null;
	const usual = index.lastSave?.medianIntervalS ?? null;
	let newest: {time: number; seconds: number; name: string} | null = null;
	for (const c of index.checkpoints) {
		if (c.status !== 'complete' || c.writeS === null || c.kind === 'last' || c.kind === 'best') continue;
		if (usual !== null && c.writeS >= usual) continue;
		if (newest === null || c.time >= newest.time) newest = {time: c.time, seconds: c.writeS, name: c.name};
	}
	return newest && {seconds: newest.seconds, name: newest.name};
}
