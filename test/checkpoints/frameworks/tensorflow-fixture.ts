// Run dirs as TensorFlow's CheckpointManager leaves them (tensorflow/tensorflow
// tensorflow/python/checkpoint/checkpoint_management.py: CheckpointManager.save, _record_state, _sweep,
// update_checkpoint_state_internal; tensorflow/python/checkpoint/functional_saver.py: MultiDeviceSaver.save).
// One save of prefix `ckpt-N`, in order:
//   1. each device's shard into `ckpt-N_temp/part-0000K-of-0000M{.index,.data-00000-of-00001}`
//   2. MergeV2Checkpoints: the data files renamed to `ckpt-N.data-0000K-of-0000M`, the merged `ckpt-N.index`
//      written, `ckpt-N_temp` removed
//   3. the write-done callback: `checkpoint` (text proto, written to a temp name and renamed) lists the new save,
//      _sweep deletes the oldest beyond max_to_keep (or preserves it under keep_checkpoint_every_n_hours, dropping it
//      from the list), and `checkpoint` is written again without them.

import {readdirSync, renameSync, rmSync, unlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {mkdir, put, setMtime} from '../fixtures.js';

/** Where a save stops: after its temp shards, after the data renames, after the index, or not at all. */
export type TfStop = 'temp' | 'data' | 'index' | null;

export interface TfSaveOptions {
	/** Epoch ms of the save. */
	readonly time: number;
	/** Number of data shards (devices). */
	readonly shards?: number;
	readonly stopAfter?: TfStop;
	/** Shard numbers that never made it (a lost rename). */
	readonly lose?: readonly number[];
}

function shardName(k: number, of: number): string {
	return `${String(k).padStart(5, '0')}-of-${String(of).padStart(5, '0')}`;
}

/** A CheckpointManager over `dir` (relative to the run dir) with max_to_keep and keep_checkpoint_every_n_hours. */
export class TfManager {
	readonly dir: string;
	readonly #maxToKeep: number | null;
	readonly #keepEveryHours: number | null;
	/** The active set, oldest first: prefix name → save time in seconds. */
	readonly #maybeDelete = new Map<string, number>();
	#latest: string | null = null;
	#lastPreserved: number;

	constructor(
		runDir: string,
		dir: string,
		options: {maxToKeep: number | null; keepEveryHours?: number; start: number},
	) {
		this.dir = mkdir(runDir, dir);
		this.#maxToKeep = options.maxToKeep;
		this.#keepEveryHours = options.keepEveryHours ?? null;
		this.#lastPreserved = options.start / 1000 - 1;
	}

	/** Saves `ckpt-<number>`; returns the prefix path (dir/ckpt-N). */
	save(number: number, options: TfSaveOptions): string {
		const prefix = `ckpt-${number}`;
		const shards = options.shards ?? 1;
		const temp = mkdir(this.dir, `${prefix}_temp`);
		for (let k = 0; k < shards; k++) {
			const part = `part-${shardName(k, shards)}`;
			put(temp, `${part}.data-00000-of-00001`, 300 + 10 * k);
			put(temp, `${part}.index`, 40);
		}
		if (options.stopAfter === 'temp') return path.join(this.dir, prefix);
		for (let k = 0; k < shards; k++) {
			if (options.lose?.includes(k)) continue;
			const from = path.join(temp, `part-${shardName(k, shards)}.data-00000-of-00001`);
			const to = path.join(this.dir, `${prefix}.data-${shardName(k, shards)}`);
			renameSync(from, to);
			setMtime(to, options.time);
		}
		if (options.stopAfter === 'data') return path.join(this.dir, prefix);
		setMtime(put(this.dir, `${prefix}.index`, 120), options.time);
		rmSync(temp, {recursive: true, force: true});
		if (options.stopAfter === 'index') return path.join(this.dir, prefix);
		this.#maybeDelete.delete(prefix);
		this.#maybeDelete.set(prefix, options.time / 1000);
		this.#latest = prefix;
		this.#recordState();
		this.#sweep();
		this.#recordState();
		return path.join(this.dir, prefix);
	}

	#sweep(): void {
		if (!this.#maxToKeep) return;
		while (this.#maybeDelete.size > this.#maxToKeep) {
			const [prefix, timestamp] = this.#maybeDelete.entries().next().value as [string, number];
			this.#maybeDelete.delete(prefix);
			if (this.#keepEveryHours !== null && timestamp - this.#keepEveryHours * 3600 >= this.#lastPreserved) {
				this.#lastPreserved = timestamp;
				continue;
			}
			// _delete_file_if_exists(filename + ".index") and (filename + ".data-?????-of-?????")
			rmSync(path.join(this.dir, `${prefix}.index`), {force: true});
			for (const name of readdirSync(this.dir)) {
				if (name.startsWith(`${prefix}.data-`)) rmSync(path.join(this.dir, name), {force: true});
			}
		}
	}

	/** The CheckpointState text proto, as text_format.MessageToString prints it, written atomically. */
	#recordState(): void {
		const lines = [`model_checkpoint_path: "${this.#latest}"`];
		for (const prefix of this.#maybeDelete.keys()) lines.push(`all_model_checkpoint_paths: "${prefix}"`);
		for (const time of this.#maybeDelete.values()) lines.push(`all_model_checkpoint_timestamps: ${time.toFixed(1)}`);
		lines.push(`last_preserved_timestamp: ${this.#lastPreserved.toFixed(1)}`);
		const tmp = path.join(this.dir, 'checkpoint.tmp1a2b3c');
		writeFileSync(tmp, `${lines.join('\n')}\n`);
		renameSync(tmp, path.join(this.dir, 'checkpoint'));
	}

	/** Removes the state file (a run whose first save has not been recorded). */
	dropState(): void {
		unlinkSync(path.join(this.dir, 'checkpoint'));
	}
}
