// Run dirs as the Hugging Face Trainer leaves them (huggingface/transformers src/transformers/trainer.py):
//   Trainer._save_checkpoint: checkpoint-<global_step>/ ← save_model → _save (model.safetensors, config.json,
//     training_args.bin; with DeepSpeed also DeepSpeedEngine.save_checkpoint's global_step<N>/ + latest), then
//     _save_optimizer_and_scheduler (optimizer.pt, scheduler.pt), _save_rng_state (rng_state.pth), then
//     TrainerState.save_to_json (trainer_state.json, keys sorted, indent 2) LAST; then _rotate_checkpoints.
//   trainer_jit_checkpoint.py CheckpointManager.execute_jit_checkpoint: checkpoint-is-incomplete.txt written before
//     _save_checkpoint and removed after it.
//   Older releases: _save_checkpoint wrote into tmp-checkpoint-<N>/ and renamed it at the end.
//   save_model() called by the job at the end of training: the output dir's own training_args.bin.

import {rmSync} from 'node:fs';
import path from 'node:path';
import {mkdir, put, setMtime, zipArchive} from '../fixtures.js';
import {pickleObject, safetensors, torchSave, type PyValue} from './huggingface-torch.js';

/** torch.save(self.args, '<dir>/training_args.bin'): a pickled TrainingArguments (a few of its real fields). */
export function trainingArgsBin(saveTotalLimit: number | null, outputDir = 'out'): Buffer {
	const fields: Array<readonly [string, PyValue]> = [
		['output_dir', outputDir],
		['overwrite_output_dir', false],
		['eval_strategy', {enumOf: 'steps'}],
		['learning_rate', {float: 5e-5}],
		['num_train_epochs', {float: 3}],
		['save_steps', {float: 100}],
		['save_total_limit', saveTotalLimit],
		['save_safetensors', true],
		['seed', 42],
		['load_best_model_at_end', true],
		['metric_for_best_model', 'loss'],
	];
	return torchSave('training_args', pickleObject('transformers.training_args', 'TrainingArguments', fields));
}

export interface HfSave {
	readonly step: number;
	readonly epoch: number;
	/** Epoch ms: the checkpoint dir's mtime once written (what _sorted_checkpoints(use_mtime=True) orders by). */
	readonly time: number;
	/** Training losses logged so far (log_history's `loss` entries). */
	readonly losses?: readonly number[];
	/** best_model_checkpoint as the job saw it, e.g. 'out/checkpoint-100'. */
	readonly best?: string;
	/** save_total_limit in this checkpoint's training_args.bin (default null: TrainingArguments' default). */
	readonly saveTotalLimit?: number | null;
	/** Where the save stopped: after the model, after the optimizer and scheduler, after rng, or mid-state. */
	readonly stopAfter?: 'model' | 'optimizer' | 'rng' | 'state-cut';
	/** DeepSpeed's save_checkpoint inside the HF checkpoint. */
	readonly deepspeed?: boolean;
	/** A JIT (SIGTERM) save: its sentinel left behind ('cut off') or removed ('finished'). */
	readonly jit?: 'cut off' | 'finished';
	/** Extra log_history entries, to make a large trainer_state.json. */
	readonly padHistory?: number;
}

/** TrainerState.save_to_json: json.dumps(asdict(state), indent=2, sort_keys=True) + '\n'. */
function trainerStateJson(save: HfSave): string {
	const history: Record<string, unknown>[] = [];
	for (let i = 0; i < (save.padHistory ?? 0); i++) {
		history.push({epoch: save.epoch, grad_norm: 1.5, learning_rate: 5e-5, loss: 9.5, step: i + 1});
	}
	for (const [i, loss] of (save.losses ?? []).entries()) {
		history.push({epoch: save.epoch, grad_norm: 1.25, learning_rate: 5e-5, loss, step: (i + 1) * 10});
	}
	history.push({epoch: save.epoch, eval_loss: 0.75, eval_runtime: 1.5, step: save.step});
	const state = {
		best_global_step: save.best === undefined ? null : Number(/(\d+)$/.exec(save.best)?.[1]),
		best_metric: save.best === undefined ? null : 0.5,
		best_model_checkpoint: save.best ?? null,
		epoch: save.epoch,
		eval_steps: 100,
		global_step: save.step,
		is_hyper_param_search: false,
		is_local_process_zero: true,
		is_world_process_zero: true,
		log_history: history.map(sortKeys),
		logging_steps: 10,
		max_steps: 1000,
		num_input_tokens_seen: 0,
		num_train_epochs: 3,
		save_steps: 100,
		stateful_callbacks: {TrainerControl: {args: {should_save: true}, attributes: {}}},
		total_flos: 12345,
		train_batch_size: 8,
		trial_name: null,
		trial_params: null,
	};
	return `${JSON.stringify(state, null, 2)}\n`;
}

function sortKeys(record: Record<string, unknown>): Record<string, unknown> {
	return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** One Trainer._save_checkpoint into `<runDir>/<rel>/checkpoint-<step>`, in its write order. Returns the dir. */
export function hfCheckpoint(runDir: string, save: HfSave, rel = ''): string {
	const name = `checkpoint-${save.step}`;
	const dir = mkdir(runDir, path.join(rel, name));
	const sentinel = path.join(dir, 'checkpoint-is-incomplete.txt');
	if (save.jit !== undefined) put(dir, 'checkpoint-is-incomplete.txt', `Checkpoint started at step ${save.step}`);
	const finish = (): string => {
		setMtime(dir, save.time);
		return dir;
	};
	// save_model → _save
	put(dir, 'model.safetensors', safetensors(64));
	put(dir, 'config.json', '{"model_type": "gpt2"}\n');
	put(dir, 'training_args.bin', trainingArgsBin(save.saveTotalLimit ?? null));
	if (save.deepspeed) {
		put(dir, `global_step${save.step}/mp_rank_00_model_states.pt`, zipArchive(300));
		put(dir, `global_step${save.step}/zero_pp_rank_0_mp_rank_00_optim_states.pt`, zipArchive(600));
		put(dir, 'latest', `global_step${save.step}`);
		put(dir, 'zero_to_fp32.py', '# DeepSpeed recovery script\n');
	}
	if (save.stopAfter === 'model') return finish();
	put(dir, 'optimizer.pt', zipArchive(500));
	put(dir, 'scheduler.pt', zipArchive(40));
	if (save.stopAfter === 'optimizer') return finish();
	put(dir, 'rng_state.pth', zipArchive(80));
	if (save.stopAfter === 'rng') return finish();
	const state = trainerStateJson(save);
	put(
		dir,
		'trainer_state.json',
		save.stopAfter === 'state-cut' ? state.slice(0, Math.floor(state.length * 0.9)) : state,
	);
	if (save.jit === 'finished') rmSync(sentinel);
	return finish();
}

/** An older release's staging dir: tmp-checkpoint-<step>/ that the save never renamed. */
export function hfStaging(runDir: string, step: number, time: number): string {
	const dir = mkdir(runDir, `tmp-checkpoint-${step}`);
	put(dir, 'model.safetensors', safetensors(64));
	put(dir, 'training_args.bin', trainingArgsBin(null));
	setMtime(dir, time);
	return dir;
}

/** trainer.save_model() at the end of training: the output dir's own model and training_args.bin. */
export function hfFinalModel(runDir: string, saveTotalLimit: number | null): void {
	put(runDir, 'model.safetensors', safetensors(64));
	put(runDir, 'config.json', '{"model_type": "gpt2"}\n');
	put(runDir, 'training_args.bin', trainingArgsBin(saveTotalLimit));
}
