// torchtitan dump folders as CheckpointManager (torchtitan/components/checkpoint.py) leaves them: step-<N>/ from
// _create_checkpoint_id under {dump_folder}/{checkpoint.folder}, written by dcp_save through
// torch.distributed.checkpoint (each rank's __<rank>_0.distcp, then the coordinator's .metadata.tmp renamed to
// .metadata), and the last step's Hugging Face form (_save_last_step with last_save_in_hf: sharded/ first, then the
// consolidated safetensors and model.safetensors.index.json). Config files: a TOML-era train config kept in the dump
// folder, or the JSON JobConfig.maybe_log writes when --job.save_config_file is set.

import {renameSync} from 'node:fs';
import path from 'node:path';
import {mkdir, put, setMtime} from '../fixtures.js';

/** How far a DCP save got: created, shards written, .metadata.tmp written, or renamed to .metadata. */
export type DcpStage = 'created' | 'shards' | 'metadata-tmp' | 'done';

export interface SaveOptions {
	/** checkpoint.folder (default "checkpoint"). */
	readonly folder?: string;
	readonly ranks?: number;
	readonly stage?: DcpStage;
	/** Epoch ms for the step directory's mtime. */
	readonly time?: number;
}

/** One dcp_save of step `step`: shards per rank, then .metadata via its .tmp (FileSystemWriter.finish). */
export function titanSave(dumpFolder: string, step: number, options: SaveOptions = {}): string {
	const dir = mkdir(dumpFolder, path.join(options.folder ?? 'checkpoint', `step-${step}`));
	const stage = options.stage ?? 'done';
	if (stage !== 'created') {
		for (let rank = 0; rank < (options.ranks ?? 2); rank++) put(dir, `__${rank}_0.distcp`, 500 + step);
	}
	if (stage === 'metadata-tmp' || stage === 'done') put(dir, '.metadata.tmp', 90);
	if (stage === 'done') renameSync(path.join(dir, '.metadata.tmp'), path.join(dir, '.metadata'));
	if (options.time !== undefined) setMtime(dir, options.time);
	return dir;
}

/** _save_last_step with last_save_in_hf: sharded/ staging, then (when `consolidated`) the consolidated files. */
export function titanLastSaveHf(dumpFolder: string, step: number, consolidated: boolean): string {
	const dir = mkdir(dumpFolder, path.join('checkpoint', `step-${step}`));
	put(dir, 'sharded/model-00001-of-00002.safetensors', 300);
	put(dir, 'sharded/model-00002-of-00002.safetensors', 300);
	if (!consolidated) return dir;
	put(dir, 'model-00001-of-00002.safetensors', 300);
	put(dir, 'model-00002-of-00002.safetensors', 300);
	const weightMap = {
		'tok_embeddings.weight': 'model-00001-of-00002.safetensors',
		'output.weight': 'model-00002-of-00002.safetensors',
	};
	put(dir, 'model.safetensors.index.json', JSON.stringify({metadata: {total_size: 600}, weight_map: weightMap}));
	return dir;
}

/**
 * A train config in the TOML era's shape (torchtitan/models/llama3/train_configs/*.toml), kept in the dump folder.
 * keepLatestK undefined leaves the line out (CheckpointManager.Config's default then applies).
 */
export function titanToml(
	dumpFolder: string,
	options: {keepLatestK?: number; folder?: string; file?: string} = {},
): string {
	const lines = [
		'[job]',
		'dump_folder = "./outputs"',
		'description = "Llama 3 debug training"',
		'',
		'[training]',
		'steps = 1000',
		'',
		'[checkpoint]',
		'enable = true',
		`folder = "${options.folder ?? 'checkpoint'}"`,
		'interval = 100',
		...(options.keepLatestK === undefined ? [] : [`keep_latest_k = ${options.keepLatestK}  # purge older ones`]),
		'last_save_model_only = true',
		'async_mode = "disabled" # ["disabled", "async", "async_with_pinned_mem"]',
		'',
		'[activation_checkpoint]',
		'mode = "selective"',
		'',
	];
	return put(dumpFolder, options.file ?? 'llama3_debug.toml', lines.join('\n'));
}

/** JobConfig.maybe_log's json.dump(self.to_dict()) into {dump_folder}/{save_config_file}. */
export function titanJobConfigJson(dumpFolder: string, keepLatestK: number, file = 'job_config.json'): string {
	const config = {
		job: {dump_folder: './outputs', description: 'Llama 3 debug training', save_config_file: file},
		training: {steps: 1000, seq_len: 2048},
		checkpoint: {enable: true, folder: 'checkpoint', interval: 100, keep_latest_k: keepLatestK, async_mode: 'async'},
	};
	return put(dumpFolder, file, JSON.stringify(config, null, 2));
}
