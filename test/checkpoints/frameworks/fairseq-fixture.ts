// Run dirs as fairseq writes them: fairseq/checkpoint_utils.py save_checkpoint (the names of checkpoint_conds in
// their order, the first written by torch_persistent_save into `<name>.tmp` and renamed, PathManager.copy to the
// rest, then the keep_interval_updates deletion), with tiny torch.save-shaped zips.

import {copyFileSync, readdirSync, renameSync, rmSync} from 'node:fs';
import path from 'node:path';
import {put, setMtime, zipArchive} from '../fixtures.js';

export interface FairseqSave {
	readonly epoch: number;
	readonly updates: number;
	/** An end-of-epoch save writes checkpoint<E>.pt, a mid-epoch one checkpoint_<E>_<U>.pt. */
	readonly endOfEpoch: boolean;
	readonly isBest?: boolean;
	/** keep_best_checkpoints: checkpoint.best_<metric>_<score:.3f><tie digit>.pt. */
	readonly top?: {readonly metric: string; readonly score: number; readonly tie: number};
	/** Epoch ms. */
	readonly time: number;
}

export interface FairseqConfig {
	/** --keep-interval-updates; 0 or absent: keep all. */
	readonly keepIntervalUpdates?: number;
	/** Trainer.checkpoint_suffix, e.g. -shard0. */
	readonly suffix?: string;
}

export const SAVE_DIR = 'checkpoints';

/** checkpoint_conds' names that hold for this save, in save_checkpoint's order. */
function fairseqNames(save: FairseqSave, suffix = ''): string[] {
	const names: string[] = [];
	if (save.endOfEpoch) names.push(`checkpoint${save.epoch}${suffix}.pt`);
	else names.push(`checkpoint_${save.epoch}_${save.updates}${suffix}.pt`);
	if (save.isBest) names.push(`checkpoint_best${suffix}.pt`);
	if (save.top) {
		const {metric, score, tie} = save.top;
		names.push(`checkpoint.best_${metric}_${score.toFixed(3)}${tie}${suffix}.pt`);
	}
	names.push(`checkpoint_last${suffix}.pt`);
	return names;
}

function bytesOf(save: FairseqSave): Buffer {
	return zipArchive(500 + save.updates);
}

/** The keep_interval_updates block: checkpoint_<E>_<U>.pt sorted by U descending, all beyond the first N removed. */
function pruneIntervalUpdates(dir: string, keep: number, suffix: string): void {
	const pattern = new RegExp(`^checkpoint_\\d+_(\\d+)${suffix}\\.pt$`);
	const found = readdirSync(dir)
		.map(name => ({name, updates: Number(pattern.exec(name)?.[1] ?? Number.NaN)}))
		.filter(item => !Number.isNaN(item.updates))
		.sort((a, b) => b.updates - a.updates);
	for (const old of found.slice(keep)) rmSync(path.join(dir, old.name));
}

/** One whole save_checkpoint call. Returns the names written. */
export function fairseqSave(run: string, save: FairseqSave, config: FairseqConfig = {}): string[] {
	const suffix = config.suffix ?? '';
	const names = fairseqNames(save, suffix);
	const dir = path.join(run, SAVE_DIR);
	const [first, ...copies] = names;
	const tmp = put(dir, `${first}.tmp`, bytesOf(save));
	renameSync(tmp, path.join(dir, first!));
	setMtime(path.join(dir, first!), save.time);
	for (const copy of copies) {
		copyFileSync(path.join(dir, first!), path.join(dir, copy));
		setMtime(path.join(dir, copy), save.time);
	}
	const keep = config.keepIntervalUpdates ?? 0;
	if (!save.endOfEpoch && keep > 0) pruneIntervalUpdates(dir, keep, suffix);
	return names;
}

/**
 * A save cut off: 'rename' stops inside torch_persistent_save (half of `<first>.tmp` written, never renamed);
 * 'copy' stops while copying to the last name (checkpoint_last.pt holds half the bytes).
 */
export function fairseqCutOff(run: string, save: FairseqSave, stage: 'rename' | 'copy'): string {
	const names = fairseqNames(save);
	const dir = path.join(run, SAVE_DIR);
	const bytes = bytesOf(save);
	const half = bytes.subarray(0, Math.floor(bytes.length / 2));
	if (stage === 'rename') return put(dir, `${names[0]}.tmp`, half);
	put(dir, names[0]!, bytes);
	return put(dir, names.at(-1)!, half);
}
