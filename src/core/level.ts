// A judgement's level, apart from the shapes that carry it (types.ts, job-types.ts), which both import it.
export type Level = 'ok' | 'warn' | 'critical';

/** Levels in order of severity: the one table every comparison of levels reads. */
export const LEVEL_RANK: Readonly<Record<Level, number>> = {ok: 0, warn: 1, critical: 2};

/** `level` is `line` or more severe. */
export function atLeast(level: Level, line: Level): boolean {
	return LEVEL_RANK[level] >= LEVEL_RANK[line];
}
