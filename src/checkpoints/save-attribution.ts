// Whether a new checkpoint is the save that was asked for (SIGUSR1: a manual one; SIGTERM: an emergency one), and the
// words for the user when it may not be. Pure: CheckpointWatcher.awaitSave does the waiting.

import type {Checkpoint, CheckpointKind} from '../core/types.js';
import {exactSpan} from '../format/duration.js';

export type SaveExpectation = 'manual' | 'emergency';

export interface SaveOutcome {
	/** The checkpoint reported: the expected kind's, or the first new one when none of that kind came. */
	readonly checkpoint: Checkpoint | null;
	/** True only when its kind is the expected one. */
	readonly attributed: boolean;
	/** Words for the user when not attributed; null when attributed or nothing came. */
	readonly note: string | null;
}

/**
 * expected: the save asked for. maybe: a save whose layout records no kind (unknown): it may well be the one asked
 * for, and waiting longer would not tell. other: a save of another known kind (a periodic one that happened to land
 * first; Lightning's last.ckpt, which its periodic saves rewrite): the asked-for one may still come.
 */
export type SaveMatch = 'expected' | 'maybe' | 'other';

export function matchSave(kind: CheckpointKind, expect: SaveExpectation): SaveMatch {
	if (kind === expect) return 'expected';
	return kind === 'unknown' ? 'maybe' : 'other';
}

const MAYBE_NOTE: Readonly<Record<SaveExpectation, string>> = {
	manual: 'next checkpoint, may be periodic',
	emergency: 'next checkpoint, kind not recorded — may be the emergency save',
};

/**
 * What one checkpoint is to the save asked for. `judged`: the watcher that indexed it noted the signal (an agent asked
 * with the save's kind), so it has judged every save since (signal-saves.ts): its answer has the expected kind, one
 * that may be it a note. An unknown save with neither is one it had seen before the signal (a periodic save that
 * completed a moment before it, which the viewer's older snapshot lacked): another save, not a maybe.
 */
function matchOf(c: Checkpoint, expect: SaveExpectation, judged: boolean): SaveMatch {
	const match = matchSave(c.kind, expect);
	return judged && match === 'maybe' && c.kindNote === undefined ? 'other' : match;
}

/**
 * The outcome once these new complete checkpoints (oldest first) are seen, or null to keep waiting: the first of the
 * expected kind; else the first maybe. Others are for the caller to remember (firstOther) until its timeout.
 */
export function settle(fresh: readonly Checkpoint[], expect: SaveExpectation, judged = false): SaveOutcome | null {
	const expected = fresh.find(c => matchOf(c, expect, judged) === 'expected');
	if (expected) return {checkpoint: expected, attributed: true, note: null};
	const maybe = fresh.find(c => matchOf(c, expect, judged) === 'maybe');
	if (maybe) {
		// Why it may not be it, when traintop knows (signal-saves.ts: "step 900 is also a periodic step …").
		const why = maybe.kindNote === undefined ? '' : ` (${maybe.kindNote})`;
		return {checkpoint: maybe, attributed: false, note: `${MAYBE_NOTE[expect]}${why}`};
	}
	return null;
}

/**
 * The save asked for came, or one that may be it: what `signal --wait` exits 0 on. A save of another kind that came
 * instead ("no manual checkpoint within 60 s; the next one is periodic") is not it. expect null (a raw signal): any.
 */
export function saveCame(outcome: SaveOutcome, expect: SaveExpectation | null): boolean {
	const {checkpoint} = outcome;
	if (checkpoint === null) return false;
	return outcome.attributed || expect === null || matchSave(checkpoint.kind, expect) === 'maybe';
}

/**
 * The first checkpoint of another known kind among these, if any; a save in its own right before a `last` or `best`
 * one, which copy or mark another save and so say less about what was saved.
 */
export function firstOther(fresh: readonly Checkpoint[], expect: SaveExpectation, judged = false): Checkpoint | null {
	const others = fresh.filter(c => matchOf(c, expect, judged) === 'other');
	return others.find(c => c.kind !== 'last' && c.kind !== 'best') ?? others[0] ?? null;
}

const KIND_WORDS: Readonly<Partial<Record<CheckpointKind, string>>> = {
	last: 'a copy of the last save (last)',
	best: 'the best one so far (best)',
};

/**
 * The outcome when the wait ends (timeout, or the watcher stopped) with no save of the expected kind: the first one of
 * another kind, named with its kind, or nothing. `timeoutMs` null: the watcher stopped before the timeout.
 */
export function unattributed(other: Checkpoint | null, expect: SaveExpectation, timeoutMs: number | null): SaveOutcome {
	if (other === null) return {checkpoint: null, attributed: false, note: null};
	// The timeout as set: "60 s", "5 min", "2.5 s", and 90 s as "1 m 30 s", never rounded to "2 min".
	const span = timeoutMs === null ? '' : exactSpan(timeoutMs / 1000);
	const when = timeoutMs === null ? 'before the watch stopped' : `within ${span}`;
	const kind = KIND_WORDS[other.kind] ?? other.kind;
	const note = `no ${expect} checkpoint ${when}; the next one (${other.name}) is ${kind}`;
	return {checkpoint: other, attributed: false, note};
}
