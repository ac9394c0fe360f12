// Output dirs as Detectron2 / fvcore write them: fvcore/common/checkpoint.py Checkpointer.save (torch.save straight
// into <name>.pth, then tag_last_checkpoint writes `last_checkpoint`), PeriodicCheckpointer.step (model_<it:07d>
// when (it + 1) % period == 0, deleting beyond max_to_keep, model_final at max_iter − 1), and the config.yaml that
// detectron2/engine/defaults.py default_setup copies there (a LazyConfig dump or a yacs CfgNode dump).

import {rmSync} from 'node:fs';
import path from 'node:path';
import {put, setMtime, zipArchive} from '../fixtures.js';

export const TAG = 'last_checkpoint';

/** Checkpointer.save: the file, then the tag one second later. Returns the file's path. */
export function d2Save(dir: string, name: string, time: number, tag = true): string {
	const file = put(dir, `${name}.pth`, zipArchive(600));
	setMtime(file, time);
	if (tag) setMtime(put(dir, TAG, `${name}.pth`), time + 1000);
	return file;
}

export interface Periodic {
	readonly dir: string;
	readonly period: number;
	readonly maxIter: number;
	readonly maxToKeep: number | null;
	/** recent_checkpoints. */
	readonly recent: string[];
}

export function periodic(dir: string, period: number, maxIter: number, maxToKeep: number | null): Periodic {
	return {dir, period, maxIter, maxToKeep, recent: []};
}

/** PeriodicCheckpointer.step(iteration) at `time`. */
export function d2Step(p: Periodic, iteration: number, time: number): void {
	if ((iteration + 1) % p.period === 0) {
		d2Save(p.dir, `model_${String(iteration).padStart(7, '0')}`, time);
		if (p.maxToKeep !== null) {
			p.recent.push(path.join(p.dir, `model_${String(iteration).padStart(7, '0')}.pth`));
			if (p.recent.length > p.maxToKeep) {
				const old = p.recent.shift()!;
				if (!old.endsWith('model_final.pth')) rmSync(old, {force: true});
			}
		}
	}
	if (iteration >= p.maxIter - 1) d2Save(p.dir, 'model_final', time + 2000);
}

/** config.yaml: LazyConfig's dump (train.checkpointer) or, with maxToKeep undefined, a yacs CfgNode dump. */
export function d2Config(dir: string, maxToKeep?: number): string {
	if (maxToKeep === undefined) {
		return put(dir, 'config.yaml', 'OUTPUT_DIR: ./output\nSOLVER:\n  CHECKPOINT_PERIOD: 5000\n  MAX_ITER: 90000\n');
	}
	const train = `train:\n  output_dir: ./output\n  max_iter: 90000\n  checkpointer:\n    max_to_keep: ${maxToKeep}\n    period: 5000\n`;
	return put(dir, 'config.yaml', train);
}

/** A torch.save cut off half way (tag not yet written). */
export function d2Truncated(dir: string, name: string, time: number): string {
	const file = put(dir, `${name}.pth`, zipArchive(600).subarray(0, 300));
	setMtime(file, time);
	return file;
}
