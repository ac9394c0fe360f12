// The size and write times of a complete checkpoint, kept between scans: a rescan of a run dir of 1000 checkpoints ×
// 100 files re-stat'ed all 100k files every time (5–6 s, ~550 MB; issue 17). A checkpoint is counted again only when
// its tree's shape (fs.ts treeShape: each directory's inode, mtime, ctime and entry count) changed since then, which
// every create, rename and removal does. A file of a complete checkpoint rewritten in place keeps the old size until
// the next change of shape: no framework the scan knows does that, and a partial checkpoint (the one being written)
// is never taken from here.

import {treeShape, treeStats, type TreeStats} from './fs.js';

interface Kept {
	readonly shape: string;
	readonly stats: TreeStats;
}

/** Enough for several run dirs of thousands of checkpoints; the oldest entries go first past it. */
const MAX_KEPT = 20_000;

const kept = new Map<string, Kept>();

/**
 * treeStats(root), or the totals of the last count when `complete` and the tree's shape has not changed. The shape is
 * taken before counting, so a change during the count shows as a different shape next time.
 */
export async function checkpointTreeStats(root: string, complete: boolean): Promise<TreeStats> {
	if (!complete) {
		kept.delete(root);
		return treeStats(root);
	}
	const shape = await treeShape(root);
	const last = kept.get(root);
	if (shape !== null && last !== undefined && last.shape === shape) return last.stats;
	const stats = await treeStats(root);
	kept.delete(root);
	if (shape !== null && stats.error === null) {
		kept.set(root, {shape, stats});
		if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
	}
	return stats;
}
