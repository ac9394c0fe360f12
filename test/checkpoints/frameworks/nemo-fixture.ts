// Run dirs as NVIDIA NeMo writes them, following NVIDIA/NeMo nemo/utils/callbacks/nemo_model_checkpoint.py
// (NeMoModelCheckpoint._save_checkpoint: the `-unfinished` marker touched first, the save, then the finalize callback
// removing the marker; _remove_checkpoint: the marker again around the deletion; _ema_format_filepath),
// nemo/lightning/ckpt_utils.py (ckpt_to_dir: a distributed save is the name without .ckpt, a directory),
// nemo/lightning/pytorch/callbacks/model_checkpoint.py (NeMo 2: weights/ then context/ inside that directory) and the
// names of nemo/utils/exp_manager.py (`{name}--{val_loss:.4f}-{epoch}`, `…-last`) and
// nemo/collections/llm/recipes/log/default.py (`{model_name}--{val_loss:.2f}-{step}-{consumed_samples}`).

import {rmSync} from 'node:fs';
import path from 'node:path';
import {link, mkdir, put, setMtime, zipArchive} from '../fixtures.js';

/** exp_manager's dirpath: `<log_dir>/checkpoints`; with explicit_log_dir the run dir is the log dir. */
export const NEMO_DIR = 'checkpoints';

/** NeMo 1 (exp_manager): `megatron_gpt--val_loss=1.9000-epoch=3`, plus `-last` for the last save. */
export function nemo1Name(loss: number, epoch: number, last = false): string {
	return `megatron_gpt--val_loss=${loss.toFixed(4)}-epoch=${epoch}${last ? '-last' : ''}`;
}

/** NeMo 2 recipes: `llama--val_loss=1.90-step=4000-consumed_samples=8000.0`, plus `-last`. */
export function nemo2Name(loss: number, step: number, samplesPerStep = 2, last = false): string {
	const samples = (step * samplesPerStep).toFixed(1);
	return `llama--val_loss=${loss.toFixed(2)}-step=${step}-consumed_samples=${samples}${last ? '-last' : ''}`;
}

export interface NemoSave {
	/** The name without .ckpt (what format_checkpoint_unfinished_marker_path strips). */
	readonly stem: string;
	readonly time: number;
	/** 'file': a `.ckpt` torch.save zip (NeMo 1, no model parallelism); 'dist': a Megatron distributed directory. */
	readonly form: 'file' | 'dist';
	/** When false the save stops before the finalize callback: the marker stays (and the data may be cut short). */
	readonly finished?: boolean;
	/** An EMA callback: `<stem>-EMA.ckpt` written after the main file, under the same marker. */
	readonly ema?: boolean;
}

function markerOf(run: string, stem: string): string {
	return path.join(run, NEMO_DIR, `${stem}-unfinished`);
}

/** One save in NeMoModelCheckpoint._save_checkpoint's order. Returns the checkpoint's path. */
export function nemoSave(run: string, save: NemoSave): string {
	const finished = save.finished ?? true;
	put(run, `${NEMO_DIR}/${save.stem}-unfinished`, ''); // set_checkpoint_unfinished_marker: touch()
	let target: string;
	if (save.form === 'file') {
		const bytes = zipArchive(200);
		// An unfinished torch.save leaves a file cut short; a finished one ends with its zip end record.
		target = put(run, `${NEMO_DIR}/${save.stem}.ckpt`, finished ? bytes : bytes.subarray(0, 120));
		if (save.ema) setMtime(put(run, `${NEMO_DIR}/${save.stem}-EMA.ckpt`, zipArchive(200)), save.time);
	} else {
		// MegatronStrategy + dist ckpt IO: weights/ (torch_dist shards, .metadata, common.pt, metadata.json), then
		// TrainerContext.io_dump writes context/.
		const root = `${NEMO_DIR}/${save.stem}`;
		put(run, `${root}/weights/__0_0.distcp`, 300);
		if (finished) {
			put(run, `${root}/weights/.metadata`, 40);
			put(run, `${root}/weights/common.pt`, zipArchive(30));
			put(run, `${root}/weights/metadata.json`, '{"sharded_backend": "torch_dist"}');
			put(run, `${root}/context/io.json`, '{}');
			put(run, `${root}/context/model.yaml`, 'num_layers: 2\n');
		}
		target = path.join(run, root);
	}
	setMtime(target, save.time);
	if (finished) rmSync(markerOf(run, save.stem)); // remove_checkpoint_unfinished_marker in the finalize callback
	return target;
}

/** save_last='link' (NeMo 2 _link_checkpoint): the `-last` directory is a relative symlink to the save. */
export function nemoLinkLast(run: string, stem: string): string {
	return link(run, `${NEMO_DIR}/${stem}-last`, stem);
}

/**
 * _remove_checkpoint cut off half way: the marker set (barrier_after), the directory partly deleted, the marker never
 * removed.
 */
export function nemoHalfDeleted(run: string, target: string): void {
	const stem = path.basename(target).replace(/\.ckpt$/, '');
	put(run, `${NEMO_DIR}/${stem}-unfinished`, '');
	rmSync(path.join(target, 'context'), {recursive: true, force: true});
}

/** A marker whose save died before writing anything. */
export function nemoOrphanMarker(run: string, stem: string): string {
	mkdir(run, NEMO_DIR);
	return put(run, `${NEMO_DIR}/${stem}-unfinished`, '');
}
