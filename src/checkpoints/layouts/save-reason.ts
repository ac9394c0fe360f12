// A save's kind from the free-text reason a job records for it (the seed metadata's `reason`: "SIGTERM",
// "preemption", "user request", "every 500 steps"…). Jobs write these words by hand, so the match is
// case-insensitive and looks for the telling part anywhere in the text.

import type {CheckpointKind} from '../../core/types.js';

type SaveKind = Extract<CheckpointKind, 'periodic' | 'manual' | 'emergency'>;

/**
 * Tried in order; the first that matches decides. Signal names come first because they are the most precise
 * ("manual save on SIGTERM" is the emergency one), then the emergency words (a preemption at step 500 is not a
 * periodic save), then the manual ones, then the periodic ones. TERM and INT must stand as words (with an optional
 * SIG): as bare substrings they would be found in "interval" or "determined".
 */
const RULES: readonly (readonly [RegExp, SaveKind])[] = [
	[/(?:^|[^a-z])(?:sig[ _-]?)?(?:term|int)(?![a-z])/, 'emergency'],
	[/usr[12]/, 'manual'],
	// A signal by its number (`f"signal {signum}"`), as Linux numbers them: 15 TERM, 2 INT; 10 USR1, 12 USR2.
	[/(?:signal|signum|sig)[ _:=#-]*(?:15|2)(?!\d)/, 'emergency'],
	[/(?:signal|signum|sig)[ _:=#-]*(?:10|12)(?!\d)/, 'manual'],
	[/preempt|emergency|requeue|time[ _-]?out|time[ _-]?limit|terminat|interrupt/, 'emergency'],
	[/manual|request|user|on[ _-]?demand/, 'manual'],
	[/periodic|interval|schedul|every|step/, 'periodic'],
];

/**
 * periodic, manual or emergency from a reason text; unknown when no rule knows it. A bare "signal" says a signal made
 * the job save, not which: real jobs write it for SIGUSR1 and SIGTERM alike, so it is unknown here, and the signal
 * traintop sent decides (checkpoints/signal-saves.ts).
 */
export function kindFromReason(reason: string): CheckpointKind {
	const text = reason.toLowerCase();
	return RULES.find(([pattern]) => pattern.test(text))?.[1] ?? 'unknown';
}

/** The reason says a signal made the job save, and nothing that tells which ("signal", "got a signal"). */
export function namesOnlyASignal(reason: string): boolean {
	return kindFromReason(reason) === 'unknown' && /signal/i.test(reason);
}
