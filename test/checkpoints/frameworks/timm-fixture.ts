// Output dirs as timm's train.py writes them: args.yaml at start, then per epoch a summary.csv row (update_summary,
// a header when a process writes its first row) BEFORE CheckpointSaver.save_checkpoint (torch.save to tmp.pth.tar,
// os.replace to last.pth.tar, hard links checkpoint-<E>.pth.tar and model_best.pth.tar, the worst deleted once
// max_history are kept), and CheckpointSaver.save_recovery (recovery_tmp.pth.tar renamed recovery-<E>-<B>.pth.tar,
// the one before the current deleted). Mirrors timm/utils/checkpoint_saver.py and train.py main.

import {appendFileSync, existsSync, linkSync, renameSync, rmSync} from 'node:fs';
import path from 'node:path';
import {put, setMtime, zipArchive} from '../fixtures.js';

export interface TimmOptions {
	readonly checkpointHist: number;
	readonly evalMetric: string;
	/** False: no eval loader, train.py ranks by train loss. */
	readonly hasEval?: boolean;
	/** Leave args.yaml out. */
	readonly noArgs?: boolean;
}

export interface TimmState {
	readonly dir: string;
	readonly options: TimmOptions;
	/** CheckpointSaver.checkpoint_files: [path, metric], best first. */
	files: [string, number][];
	best: number | null;
	headerPending: boolean;
	prevRecovery: string;
	currRecovery: string;
}

export function timmRun(dir: string, options: TimmOptions): TimmState {
	if (!options.noArgs) {
		// yaml.safe_dump sorts keys.
		const args = `amp: true\ncheckpoint_hist: ${options.checkpointHist}\nepochs: 300\neval_metric: ${options.evalMetric}\nmodel: resnet50\n`;
		put(dir, 'args.yaml', args);
	}
	return {dir, options, files: [], best: null, headerPending: true, prevRecovery: '', currRecovery: ''};
}

/** A new process resuming the run: an empty checkpoint_files list, and a header before its first summary row. */
export function timmRestart(state: TimmState): void {
	state.files = [];
	state.best = null;
	state.headerPending = true;
	state.prevRecovery = '';
	state.currRecovery = '';
}

function summaryRow(state: TimmState, epoch: number, scores: {loss: number; top1: number}): void {
	const evalCols = state.options.hasEval === false ? '' : ',eval_loss,eval_top1,eval_top5';
	const header = `epoch,train_loss${evalCols},lr\n`;
	const evals = state.options.hasEval === false ? '' : `,${scores.loss},${scores.top1},${scores.top1 + 5}`;
	const row = `${epoch},${scores.loss + 1}${evals},0.001\n`;
	appendFileSync(path.join(state.dir, 'summary.csv'), (state.headerPending ? header : '') + row);
	state.headerPending = false;
}

/** One epoch's end: the summary row, then save_checkpoint(epoch, metric) at `time`. */
export function timmEpoch(state: TimmState, epoch: number, scores: {loss: number; top1: number}, time: number): void {
	summaryRow(state, epoch, scores);
	const {dir, options} = state;
	const decreasing = options.hasEval === false || options.evalMetric === 'loss';
	const metric = options.hasEval === false || options.evalMetric === 'loss' ? scores.loss : scores.top1;
	const better = (a: number, b: number): boolean => (decreasing ? a < b : a > b);
	const tmp = put(dir, 'tmp.pth.tar', zipArchive(700 + epoch));
	setMtime(tmp, time);
	const last = path.join(dir, 'last.pth.tar');
	if (existsSync(last)) rmSync(last);
	renameSync(tmp, last);
	const worst = state.files.at(-1);
	if (state.files.length < options.checkpointHist || worst === undefined || better(metric, worst[1])) {
		if (state.files.length >= options.checkpointHist) {
			for (const [file] of state.files.splice(options.checkpointHist - 1)) rmSync(file, {force: true});
		}
		const save = path.join(dir, `checkpoint-${epoch}.pth.tar`);
		if (existsSync(save)) rmSync(save);
		linkSync(last, save);
		state.files.push([save, metric]);
		state.files.sort((a, b) => (decreasing ? a[1] - b[1] : b[1] - a[1]));
		if (state.best === null || better(metric, state.best)) {
			state.best = metric;
			const best = path.join(dir, 'model_best.pth.tar');
			if (existsSync(best)) rmSync(best);
			linkSync(last, best);
		}
	}
}

/** save_recovery(epoch, batch) at `time`. */
export function timmRecovery(state: TimmState, epoch: number, batch: number, time: number): void {
	const tmp = put(state.dir, 'recovery_tmp.pth.tar', zipArchive(300));
	setMtime(tmp, time);
	const save = path.join(state.dir, `recovery-${epoch}-${batch}.pth.tar`);
	renameSync(tmp, save);
	if (state.prevRecovery !== '' && existsSync(state.prevRecovery)) rmSync(state.prevRecovery);
	state.prevRecovery = state.currRecovery;
	state.currRecovery = save;
}

/** A save cut off inside torch.save: half a zip at `name` (tmp.pth.tar or recovery_tmp.pth.tar), never renamed. */
export function timmCutOff(state: TimmState, name: 'tmp.pth.tar' | 'recovery_tmp.pth.tar', time: number): string {
	const file = put(state.dir, name, zipArchive(700).subarray(0, 350));
	setMtime(file, time);
	return file;
}
