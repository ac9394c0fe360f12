// Megatron-LM save directories as megatron/training/checkpointing.py writes them: save_checkpoint has every rank write
// its part of iter_<7 digits>/ (get_checkpoint_name), then, after a barrier, iter_finalize_fn has rank 0 rewrite
// latest_checkpointed_iteration.txt (get_checkpoint_tracker_filename) with the iteration. The distributed format
// mirrors megatron/core/dist_checkpointing/serialization.py save: DCP shards and .metadata, then metadata.json
// (save_config) in metadata_finalize_fn. Contents are tiny; the legacy model file is a real torch.save-shaped zip.

import path from 'node:path';
import {mkdir, put, setMtime, zipArchive} from '../fixtures.js';

export const TRACKER = 'latest_checkpointed_iteration.txt';

/** get_checkpoint_name's directory: iter_{:07d}. */
export function iterName(iteration: number): string {
	return `iter_${String(iteration).padStart(7, '0')}`;
}

/** mp_rank_{tp:02d}, with _{pp:03d} under pipeline parallelism (and _{ep:03d} under expert parallelism). */
export function rankDirName(tp: number, pp: number | null, ep: number | null = null): string {
	const pipeline = pp === null ? '' : `_${String(pp).padStart(3, '0')}`;
	const expert = ep === null ? '' : `_${String(ep).padStart(3, '0')}`;
	return `mp_rank_${String(tp).padStart(2, '0')}${pipeline}${expert}`;
}

export interface LegacyOptions {
	readonly tp?: number;
	/** Pipeline-parallel size; 1 leaves _<pp> out of the rank directory names. */
	readonly pp?: number;
	/** Write distrib_optim.pt beside each model file (--use-distributed-optimizer). */
	readonly distOptim?: boolean;
}

/** The legacy (torch) format: one torch.save zip per model-parallel rank, as each rank's torch.save leaves it. */
export function legacyIteration(saveDir: string, iteration: number, options: LegacyOptions = {}): string {
	const dir = path.join(saveDir, iterName(iteration));
	const pp = options.pp ?? 1;
	for (let t = 0; t < (options.tp ?? 1); t++) {
		for (let p = 0; p < pp; p++) {
			const rank = rankDirName(t, pp > 1 ? p : null);
			if (options.distOptim) put(dir, `${rank}/distrib_optim.pt`, zipArchive(200));
			put(dir, `${rank}/model_optim_rng.pt`, zipArchive(300 + iteration));
		}
	}
	return dir;
}

/** How far a torch_dist save got: shards only, shards and .metadata, or finalized with metadata.json. */
export type DistStage = 'shards' | 'dcp-metadata' | 'finalized';

/** The torch_dist format: DCP's shards then .metadata, then dist_checkpointing's metadata.json when finalized. */
export function distIteration(saveDir: string, iteration: number, stage: DistStage = 'finalized'): string {
	const dir = mkdir(saveDir, iterName(iteration));
	put(dir, '__0_0.distcp', 400);
	put(dir, '__1_0.distcp', 400);
	if (stage === 'shards') return dir;
	put(dir, '.metadata', 120);
	if (stage === 'finalized')
		put(dir, 'metadata.json', JSON.stringify({sharded_backend: 'torch_dist', sharded_backend_version: 1}));
	return dir;
}

/** iter_finalize_fn: the tracker holds the iteration (or "release"), no newline. */
export function writeTracker(saveDir: string, value: number | 'release'): string {
	return put(saveDir, TRACKER, String(value));
}

/**
 * A run that saved `iterations` in order, each followed by its tracker update (the order save_checkpoint keeps);
 * each iteration's directory gets an mtime a minute after the previous one.
 */
export function legacyRun(
	saveDir: string,
	iterations: readonly number[],
	t0: number,
	options: LegacyOptions = {},
): string[] {
	return iterations.map((iteration, i) => {
		const dir = legacyIteration(saveDir, iteration, options);
		writeTracker(saveDir, iteration);
		setMtime(dir, t0 + i * 60_000);
		return dir;
	});
}
