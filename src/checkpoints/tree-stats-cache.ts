// The size and write times of a complete checkpoint, kept between scans: a rescan of a run dir of 1000 checkpoints ×
// 100 files re-stat'ed all 100k files every time (5–6 s, ~550 MB; issue 17). A complete checkpoint is counted again
// when the names in its tree changed (fs.ts treeShape `names`: a file created, removed or renamed to another name).
// When only its directories' times changed (a file renamed away and back, or replaced by a rename over it, as a
// rename storm or a tool that rewrites a file atomically does), the last count stands until the first rescan
// 60–120 s after it (recountAfterMs): counting 100 files per checkpoint on each such change was what a rename storm
// cost (85 % CPU). Rescans follow file events, so after a lone atomic rewrite that is the next save's. A file of a
// complete checkpoint rewritten in place keeps the old size until the next change of shape: no framework the scan
// knows does that, and a partial checkpoint (the one being written) is never taken from here.

import {treeShape, treeStats, type TreeShape, type TreeStats} from './fs.js';

interface Kept {
	readonly shape: TreeShape;
	readonly stats: TreeStats;
	/** Epoch ms of the count. */
	readonly countedAt: number;
}

/** Enough for several run dirs of thousands of checkpoints; the oldest entries go first past it. */
const MAX_KEPT = 20_000;

/**
 * How long a count stands at least when only the times of a checkpoint's directories changed, not their names; each
 * checkpoint adds up to as long again (recountAfterMs), so that a storm over all of them does not count them all in
 * one rescan.
 */
export const RECOUNT_AFTER_MS = 60_000;

/** RECOUNT_AFTER_MS plus a share of it that is fixed per path (an FNV-1a hash of it). */
export function recountAfterMs(root: string): number {
	let hash = 0x811c9dc5;
	for (let i = 0; i < root.length; i++) hash = Math.imul(hash ^ root.charCodeAt(i), 0x01000193) >>> 0;
	return RECOUNT_AFTER_MS * (1 + hash / 2 ** 32);
}

const kept = new Map<string, Kept>();

function stillGood(root: string, last: Kept | undefined, shape: TreeShape, now: number): last is Kept {
	if (last === undefined || last.shape.names !== shape.names) return false;
	return last.shape.times === shape.times || now - last.countedAt < recountAfterMs(root);
}

/**
 * treeStats(root), or the totals of the last count when `complete` and the tree's shape has not changed (above). The
 * shape is taken before counting, so a change during the count shows as a different shape next time.
 */
export async function checkpointTreeStats(root: string, complete: boolean): Promise<TreeStats> {
	if (!complete) {
		kept.delete(root);
		return treeStats(root);
	}
	const shape = await treeShape(root);
	const last = kept.get(root);
	const now = Date.now();
	if (shape !== null && stillGood(root, last, shape, now)) return last.stats;
	const stats = await treeStats(root);
	kept.delete(root);
	if (shape !== null && stats.error === null) {
		kept.set(root, {shape, stats, countedAt: now});
		if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
	}
	return stats;
}
