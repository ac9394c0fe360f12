// Project dirs as Hugging Face Accelerate leaves them (huggingface/accelerate src/accelerate/accelerator.py:
// Accelerator.save_state with ProjectConfiguration(automatic_checkpoint_naming=True, total_limit)):
//   1. os.listdir(<project_dir>/checkpoints), sorted by the number in each name; if count + 1 > total_limit, the
//      oldest count + 1 − total_limit are shutil.rmtree'd (BEFORE the save);
//   2. checkpoint_<iteration>/ is made, and checkpointing.py save_accelerator_state writes model.safetensors,
//      optimizer.bin, scheduler.bin, (sampler.bin), (scaler.pt), then random_states_<rank>.pkl per process;
//   3. save_custom_state writes custom_checkpoint_<i>.pkl per registered object; iteration += 1.

import {readdirSync, rmSync} from 'node:fs';
import path from 'node:path';
import {mkdir, put, setMtime, zipArchive} from '../fixtures.js';
import {safetensors} from './huggingface-torch.js';

export interface AccelerateSave {
	/** ProjectConfiguration.iteration: the N of checkpoint_<N>. */
	readonly iteration: number;
	/** Epoch ms: the checkpoint dir's mtime once written. */
	readonly time: number;
	/** ProjectConfiguration.total_limit (null: none, nothing is deleted). */
	readonly totalLimit?: number | null;
	/** Processes that write their random_states_<rank>.pkl (default 1). */
	readonly ranks?: number;
	/** Objects registered with register_for_checkpointing (default 0). */
	readonly customObjects?: number;
	/** Where the save stopped: right after making the dir, after the weights, after optimizer and scheduler, or after
	 * the random states (before the custom objects). */
	readonly stopAfter?: 'mkdir' | 'model' | 'optimizer' | 'rng';
	/** The random states file cut short (the writer died inside torch.save). */
	readonly cutRng?: boolean;
}

/** save_state's rotation, run before the save: deletes the oldest entries beyond total_limit − 1. */
export function accelerateRotate(projectDir: string, totalLimit: number | null): string[] {
	const folder = path.join(projectDir, 'checkpoints');
	const entries = readdirSync(folder);
	if (totalLimit === null || entries.length + 1 <= totalLimit) return [];
	const number = (name: string): number => Number(/(\d+)/.exec(name)?.[1]);
	const doomed = entries.sort((a, b) => number(a) - number(b)).slice(0, entries.length + 1 - totalLimit);
	for (const name of doomed) rmSync(path.join(folder, name), {recursive: true});
	return doomed;
}

/** One Accelerator.save_state(). Returns the checkpoint dir. */
export function accelerateSave(projectDir: string, save: AccelerateSave): string {
	mkdir(projectDir, 'checkpoints');
	accelerateRotate(projectDir, save.totalLimit ?? null);
	const dir = mkdir(projectDir, `checkpoints/checkpoint_${save.iteration}`);
	const finish = (): string => {
		setMtime(dir, save.time);
		return dir;
	};
	if (save.stopAfter === 'mkdir') return finish();
	put(dir, 'model.safetensors', safetensors(32));
	if (save.stopAfter === 'model') return finish();
	put(dir, 'optimizer.bin', zipArchive(400));
	put(dir, 'scheduler.bin', zipArchive(40));
	if (save.stopAfter === 'optimizer') return finish();
	for (let rank = 0; rank < (save.ranks ?? 1); rank++) {
		const rng = zipArchive(120);
		put(dir, `random_states_${rank}.pkl`, save.cutRng && rank === 0 ? rng.subarray(0, 90) : rng);
	}
	if (save.stopAfter === 'rng') return finish();
	for (let i = 0; i < (save.customObjects ?? 0); i++) put(dir, `custom_checkpoint_${i}.pkl`, zipArchive(60));
	return finish();
}
