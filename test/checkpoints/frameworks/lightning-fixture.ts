// Run dirs as PyTorch Lightning writes them, following Lightning-AI/pytorch-lightning
// src/lightning/pytorch/callbacks/model_checkpoint.py (ModelCheckpoint._format_checkpoint_name, format_checkpoint_name,
// _get_metric_interpolated_filepath_name, _save_last_checkpoint, _link_checkpoint), trainer/connectors/
// checkpoint_connector.py (hpc_save_path), callbacks/on_exception_checkpoint.py, strategies/deepspeed.py and
// strategies/fsdp.py (save_checkpoint) and cli.py (SaveConfigCallback.setup). Files are tiny torch.save-shaped zips.

import {existsSync} from 'node:fs';
import path from 'node:path';
import {link, mkdir, put, setMtime, zipArchive} from '../fixtures.js';

/** Where ModelCheckpoint saves with the default TensorBoard logger (__resolve_ckpt_dir). */
const VERSION_DIR = 'lightning_logs/version_0';
export const CKPT_DIR = `${VERSION_DIR}/checkpoints`;

/** One template field: `{epoch}` → ['epoch', '2'], `{val_loss:.2f}` → ['val_loss', '0.32'] (already formatted). */
export type Field = readonly [name: string, formatted: string];

/**
 * The file name format_checkpoint_name gives: each field `name=value` (auto_insert_metric_name) joined by `-`, then
 * `-v<ver>` when the plain name was taken, then `.ckpt`.
 */
function checkpointName(fields: readonly Field[], ver?: number): string {
	const stem = fields.map(([name, value]) => `${name}=${value}`).join('-');
	return `${ver === undefined ? stem : `${stem}-v${ver}`}.ckpt`;
}

export interface Save {
	/** Relative to the run dir. */
	readonly dir?: string;
	readonly fields: readonly Field[];
	/** Epoch ms for the file's mtime. */
	readonly time: number;
}

/**
 * A top-k save by _update_best_and_save / _save_none_monitor_checkpoint: like _get_metric_interpolated_filepath_name,
 * a name already on disk gets -v1, -v2…. `cut` bytes are missing from the end (a save copied in place, cut off).
 */
export function saveTopK(run: string, save: Save, cut = 0): string {
	const dir = save.dir ?? CKPT_DIR;
	let name = checkpointName(save.fields);
	for (let ver = 1; existsSync(path.join(run, dir, name)); ver++) name = checkpointName(save.fields, ver);
	const bytes = zipArchive(200);
	const file = put(run, `${dir}/${name}`, bytes.subarray(0, bytes.length - cut));
	setMtime(file, save.time);
	return file;
}

/** save_last='link': _link_checkpoint's relative symlink from last.ckpt to the save just written. */
export function linkLast(target: string, name = 'last.ckpt'): string {
	const linkPath = path.join(path.dirname(target), name);
	return link(path.dirname(linkPath), name, path.relative(path.dirname(linkPath), target));
}

/** save_last=True: _save_last_checkpoint writes a full save under CHECKPOINT_NAME_LAST. */
export function saveLastCopy(run: string, time: number, dir = CKPT_DIR, name = 'last.ckpt'): string {
	const file = put(run, `${dir}/${name}`, zipArchive(200));
	setMtime(file, time);
	return file;
}

/** SIGUSR1 on SLURM: the signal connector saves hpc_ckpt_<max+1>.ckpt in default_root_dir (the run dir). */
export function hpcSave(run: string, n: number, time: number): string {
	const file = put(run, `hpc_ckpt_${n}.ckpt`, zipArchive(200));
	setMtime(file, time);
	return file;
}

/** OnExceptionCheckpoint(dirpath) writes `<filename>.ckpt`, by default on_exception.ckpt. */
export function onExceptionSave(run: string, time: number, dir = CKPT_DIR): string {
	const file = put(run, `${dir}/on_exception.ckpt`, zipArchive(200));
	setMtime(file, time);
	return file;
}

/**
 * DeepSpeedStrategy.save_checkpoint: engine.save_checkpoint(filepath, tag='checkpoint') makes the `.ckpt` a
 * directory: per-rank files under the tag, zero_to_fp32.py, and `latest` (the tag) written last.
 */
export function deepspeedSave(run: string, name: string, finished: boolean, dir = CKPT_DIR): string {
	const root = `${dir}/${name}`;
	put(run, `${root}/checkpoint/mp_rank_00_model_states.pt`, zipArchive(100));
	put(run, `${root}/checkpoint/zero_pp_rank_0_mp_rank_00_optim_states.pt`, zipArchive(100));
	put(run, `${root}/zero_to_fp32.py`, '# recovery script\n');
	if (finished) put(run, `${root}/latest`, 'checkpoint');
	return path.join(run, root);
}

/** FSDPStrategy.save_checkpoint (state_dict_type 'sharded'): DCP shards and .metadata, then rank 0's meta.pt. */
export function fsdpShardedSave(run: string, name: string, finished: boolean, dir = CKPT_DIR): string {
	const root = `${dir}/${name}`;
	mkdir(run, root);
	put(run, `${root}/__0_0.distcp`, 300);
	put(run, `${root}/.metadata`, 40);
	if (finished) put(run, `${root}/meta.pt`, zipArchive(50));
	return path.join(run, root);
}

export interface CheckpointSettings {
	readonly monitor?: string | null;
	readonly mode?: string;
	readonly save_top_k?: number;
}

function yamlValue(value: string | number | null): string {
	return value === null ? 'null' : String(value);
}

/**
 * config.yaml as SaveConfigCallback dumps it into trainer.log_dir: the ModelCheckpoint under trainer.callbacks
 * (class_path/init_args), or under a top-level model_checkpoint key (add_lightning_class_args).
 */
export function cliConfig(
	run: string,
	settings: CheckpointSettings,
	form: 'callbacks' | 'model_checkpoint' = 'callbacks',
	logDir = VERSION_DIR,
): string {
	const args = Object.entries(settings).map(([key, value]) => `${key}: ${yamlValue(value)}`);
	const body =
		form === 'callbacks'
			? [
					'trainer:',
					'  max_epochs: 10',
					'  callbacks:',
					'  - class_path: lightning.pytorch.callbacks.ModelCheckpoint',
					'    init_args:',
					'      dirpath: null',
					'      filename: null',
					...args.map(line => `      ${line}`),
					'      save_last: link',
				]
			: ['trainer:', '  max_epochs: 10', 'model_checkpoint:', '  dirpath: null', ...args.map(line => `  ${line}`)];
	const text = ['# lightning.pytorch==2.5.0', 'seed_everything: 42', ...body, 'ckpt_path: null', ''].join('\n');
	return put(run, logDir === '' ? 'config.yaml' : `${logDir}/config.yaml`, text);
}

/**
 * A run as a LightningCLI job leaves it mid-training: three top-k saves by val_loss (the worst, 0.61, is epoch 1),
 * last.ckpt linked to the newest, config.yaml declaring top-3 (min). Returns the worst save's path.
 */
export function topThreeRun(run: string, t0: number): string {
	const files = [0.52, 0.61, 0.47].map((loss, epoch) =>
		saveTopK(run, {
			fields: [
				['epoch', String(epoch)],
				['step', String((epoch + 1) * 100)],
				['val_loss', loss.toFixed(2)],
			],
			time: t0 + epoch * 60_000,
		}),
	);
	linkLast(files.at(-1) ?? '');
	cliConfig(run, {monitor: 'val_loss', mode: 'min', save_top_k: 3});
	return files[1] ?? '';
}
