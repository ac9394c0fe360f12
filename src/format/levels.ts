import type {Level} from '../core/types.js';

import {LEVEL_RANK} from '../core/level.js';
// How a level reads. The word carries the level on its own, so a NO_COLOR terminal, a log file or
// a colour-blind reader loses nothing: `ok` in lower case because it needs no attention, WARN and
// CRIT in upper case so that `grep CRIT` finds them. Every view takes its words from here.

/** The level's word: `ok`, `WARN`, `CRIT`. */
export const LEVEL_WORD: Readonly<Record<Level, string>> = {ok: 'ok', warn: 'WARN', critical: 'CRIT'};

/** The word padded to the widest (4 columns), so that what follows it lines up: `ok  `, `WARN`, `CRIT`. */
export const LEVEL_TAG: Readonly<Record<Level, string>> = padWords(LEVEL_WORD);

function padWords(words: Readonly<Record<Level, string>>): Record<Level, string> {
	const width = Math.max(...Object.values(words).map(word => word.length));
	return {ok: words.ok.padEnd(width), warn: words.warn.padEnd(width), critical: words.critical.padEnd(width)};
}

/** Colour names (Ink's, plain strings) for views that colour; never the only carrier of the level. */
export const LEVEL_COLOR: Readonly<Record<Level, string>> = {ok: 'green', warn: 'yellow', critical: 'red'};

/** The more severe of two levels. */
export function worse(a: Level, b: Level): Level {
	return LEVEL_RANK[a] >= LEVEL_RANK[b] ? a : b;
}

/** Did the level go up (towards critical)? */
export function isRising(from: Level, to: Level): boolean {
	return LEVEL_RANK[to] > LEVEL_RANK[from];
}
