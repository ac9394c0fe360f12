import type {Level} from '../core/types.js';

// How a level looks. The word carries the level on its own, so a NO_COLOR terminal (or a
// colour-blind reader) loses nothing; the colour only makes it faster to spot.

/** Four columns each, so values after it line up: `ok  `, `WARN`, `CRIT` (the headless mode's words). */
export const LEVEL_TAG: Readonly<Record<Level, string>> = {ok: 'ok  ', warn: 'WARN', critical: 'CRIT'};

export const LEVEL_COLOR: Readonly<Record<Level, string>> = {ok: 'green', warn: 'yellow', critical: 'red'};

const RANK: Readonly<Record<Level, number>> = {ok: 0, warn: 1, critical: 2};

/** The more severe of two levels. */
export function worse(a: Level, b: Level): Level {
	return RANK[a] >= RANK[b] ? a : b;
}

/** Did the level go up (towards critical)? */
export function isRising(from: Level, to: Level): boolean {
	return RANK[to] > RANK[from];
}
