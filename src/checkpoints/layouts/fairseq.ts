// fairseq: every save writes ONE file with torch_persistent_save (into `<name>.tmp`, renamed when done; straight into
// the final name where the path manager cannot rename, or with write_checkpoints_asynchronously), then copies it to
// each other name the save qualifies for, in this order: checkpoint<E>.pt (end of epoch), checkpoint_<E>_<U>.pt
// (every save_interval_updates), checkpoint_best.pt, checkpoint.best_<metric>_<score>.pt (keep_best_checkpoints),
// checkpoint_last.pt. A name may carry a suffix (`-shard<R>` for sharded FSDP state). Partial: a `.tmp` left behind
// (the save was cut off before the rename), or a file without its zip end record (a direct write or a copy cut
// off). After the save it deletes, per series and per suffix: checkpoint_<E>_<U>.pt beyond the newest
// keep_interval_updates (by U), checkpoint<E>.pt beyond the newest keep_last_epochs, .best_ files beyond the best
// keep_best_checkpoints. None of these settings is written beside the checkpoints (they live in the pickle), so
// --keep stands for keep_interval_updates and the other two series are kept.
// Source: facebookresearch/fairseq fairseq/checkpoint_utils.py: save_checkpoint (checkpoint_conds, the
// PathManager.copy loop, the three deletion blocks), checkpoint_paths, torch_persistent_save; fairseq/trainer.py:
// Trainer.save_checkpoint, checkpoint_suffix; fairseq/dataclass/configs.py: CheckpointConfig.

import type {ScannedCheckpoint} from '../../core/types.js';
import type {RetentionPlan, RuleInput} from '../rules.js';
import {judgeFile} from './file-checks.js';
import {
	found,
	intOf,
	NOTHING,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';

/** `-shard0` and the like: what Trainer.checkpoint_suffix adds before `.pt`. */
const SUFFIX = '(-[\\w-]+)?';
const UPDATES = new RegExp(`^checkpoint_(\\d+)_(\\d+)${SUFFIX}\\.pt$`);
const EPOCH = new RegExp(`^checkpoint(\\d+)${SUFFIX}\\.pt$`);
const BEST = new RegExp(`^checkpoint_best${SUFFIX}\\.pt$`);
const LAST = new RegExp(`^checkpoint_last${SUFFIX}\\.pt$`);
/** checkpoint.best_<metric>_<{:.3f} score><tie-break digit>: fairseq ranks by that whole number. */
const TOP = new RegExp(`^checkpoint\\.best_(.+)_(\\d+\\.?\\d*)${SUFFIX}\\.pt$`);
const TMP = /\.tmp$/;

interface Parsed {
	readonly fields: Partial<Omit<Found, 'entry'>>;
	readonly suffix: string;
}

/** What a final name (without `.tmp`) says, or null when it is not one of fairseq's. */
function parseName(name: string): Parsed | null {
	let m = UPDATES.exec(name);
	if (m) return {fields: {epoch: intOf(m[1]), step: intOf(m[2]), kind: 'periodic'}, suffix: m[3] ?? ''};
	m = EPOCH.exec(name);
	if (m) return {fields: {epoch: intOf(m[1]), kind: 'periodic'}, suffix: m[2] ?? ''};
	m = BEST.exec(name);
	if (m) return {fields: {kind: 'best'}, suffix: m[1] ?? ''};
	m = LAST.exec(name);
	if (m) return {fields: {kind: 'last'}, suffix: m[1] ?? ''};
	m = TOP.exec(name);
	if (m && m[1] !== undefined) {
		const value = Number(m[2]);
		const metric = Number.isFinite(value) ? {name: m[1], value} : null;
		return {fields: {kind: 'best', metric}, suffix: m[3] ?? ''};
	}
	return null;
}

/** The suffix of a checkpoint of this layout ('' when none): fairseq rotates each suffix on its own. */
function suffixOf(c: ScannedCheckpoint): string {
	return parseName(c.name.replace(TMP, ''))?.suffix ?? '';
}

async function judge(entry: Found['entry'], parsed: Parsed, io: LayoutIO): Promise<Found> {
	if (TMP.test(entry.name)) {
		const why = 'torch_persistent_save renames its .tmp when done: still here, so the save did not finish';
		return found(entry, {...parsed.fields, status: 'partial', warnings: [why]});
	}
	const judged = await judgeFile(entry, io);
	return found(entry, {...parsed.fields, status: judged.status, warnings: judged.warnings});
}

/** Oldest first by update count, as checkpoint_paths sorts them (descending) before keeping the first N. */
function byUpdates(a: ScannedCheckpoint, b: ScannedCheckpoint): number {
	return (a.step ?? 0) - (b.step ?? 0) || a.time - b.time;
}

/**
 * After a save in the middle of an epoch fairseq keeps the newest keep_interval_updates checkpoint_<E>_<U>.pt of
 * each suffix: the next one deletes the oldest count + 1 − N. Last and best are single files overwritten in place.
 */
function fairseqRetention({checkpoints, keep}: RuleInput): RetentionPlan {
	const isUpdates = (c: ScannedCheckpoint): boolean => UPDATES.test(c.name);
	const counted = checkpoints.filter(c => isUpdates(c) && c.status === 'complete').sort(byUpdates);
	const protectedOnes = checkpoints.filter(c => LAST.test(c.name) || BEST.test(c.name));
	const others = checkpoints.some(c => EPOCH.test(c.name) || TOP.test(c.name));
	const note = others ? ' (keep_last_epochs, keep_best_checkpoints not known: those files kept)' : '';
	if (keep === null) {
		const rule = `fairseq keep_interval_updates unknown: keeps all (--keep N)`;
		return {rule, counted, toPrune: [], protected: protectedOnes};
	}
	const toPrune: ScannedCheckpoint[] = [];
	for (const suffix of new Set(counted.map(suffixOf))) {
		const series = counted.filter(c => suffixOf(c) === suffix);
		toPrune.push(...series.slice(0, Math.max(0, series.length + 1 - keep)));
	}
	return {rule: `fairseq keep_interval_updates ${keep}${note}`, counted, toPrune, protected: protectedOnes};
}

export const fairseqLayout: Layout = {
	name: 'fairseq',
	title: 'fairseq',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const result: Found[] = [];
		for (const entry of dir.entries) {
			if (entry.type === 'dir' || entry.type === 'other') continue;
			const parsed = parseName(entry.name.replace(TMP, ''));
			if (parsed !== null) result.push(await judge(entry, parsed, io));
		}
		return result.length === 0 ? NOTHING : {found: result, warnings: [], declared: null};
	},
	retention: fairseqRetention,
};
