// Run dirs as Ultralytics YOLO writes them: runs/<task>/<name>/args.yaml from BaseTrainer.__init__, and
// weights/last.pt, best.pt, epoch<N>.pt from BaseTrainer.save_model (one torch.save buffer written in place with
// write_bytes: last.pt every epoch, best.pt on a new best fitness, epoch<N>.pt when epoch % save_period == 0).

import path from 'node:path';
import {mkdir, put, setMtime, zipArchive} from '../fixtures.js';

export interface YoloEpoch {
	/** The trainer's 0-based epoch. */
	readonly epoch: number;
	readonly fitness: number;
	readonly time: number;
}

export interface YoloRun {
	/** runs/<task>/<name>: what traintop is pointed at. */
	readonly runDir: string;
	readonly weights: string;
}

/** A run with args.yaml and an empty weights dir. */
export function yoloRun(root: string, savePeriod: number, task = 'detect', name = 'train'): YoloRun {
	const runDir = mkdir(root, `runs/${task}/${name}`);
	put(runDir, 'args.yaml', `task: ${task}\nmode: train\nepochs: 100\nsave_period: ${savePeriod}\nname: ${name}\n`);
	return {runDir, weights: mkdir(runDir, 'weights')};
}

/** save_model for each epoch in turn; best.pt follows the best fitness so far. */
export function yoloTrain(run: YoloRun, savePeriod: number, epochs: readonly YoloEpoch[]): void {
	let best = Number.NEGATIVE_INFINITY;
	for (const e of epochs) {
		const buffer = zipArchive(400 + e.epoch);
		const write = (file: string): void => setMtime(put(run.weights, file, buffer), e.time);
		best = Math.max(best, e.fitness);
		write('last.pt');
		if (e.fitness === best) write('best.pt');
		if (savePeriod > 0 && e.epoch % savePeriod === 0) write(`epoch${e.epoch}.pt`);
	}
}

/** A write_bytes cut off: half the zip ('half') or nothing yet ('empty'). */
export function yoloCutOff(run: YoloRun, file: string, how: 'half' | 'empty', time: number): string {
	const buffer = zipArchive(400);
	const written = put(run.weights, file, how === 'empty' ? Buffer.alloc(0) : buffer.subarray(0, 200));
	setMtime(written, time);
	return path.join(run.weights, file);
}
