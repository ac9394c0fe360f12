// What a timm run's checkpoints add to its args.yaml and summary.csv (timm.ts): the score of each checkpoint-<E>
// (the `metric` CheckpointSaver pickles in it, for an epoch summary.csv has no row for, or no run summary at all), and
// train.py's arguments pickled in each save (checkpoint_hist: max_history; eval_metric) where args.yaml is missing.
// A saver used without train.py (no args.yaml, no summary.csv) ranks a metric whose name and direction no file
// states (CheckpointSaver(decreasing=…) is not stored): the direction is inferred from model_best.pth.tar, the best
// save so far, whose metric is then the lowest (decreasing) or the highest of those kept; said to be inferred.
// Source: huggingface/pytorch-image-models 1.0.29 timm/utils/checkpoint_saver.py: CheckpointSaver.save_checkpoint
// (model_best on a better metric than best_metric; checkpoint_files sorted by metric, reverse=not decreasing),
// _save; train.py: main.

import type {DeclaredFact, MonitorSetting} from '../../core/types.js';
import {relName, type Entry, type LayoutIO, type ScanDir} from './layout.js';
import type {TimmRun} from './timm-run.js';
import {readTimmSave, type TimmSave} from './timm-saves.js';

const EPOCH_FILE = /^checkpoint-(\d+)\.pth\.tar$/;
const BEST = 'model_best.pth.tar';
/** The key CheckpointSaver pickles the score under: the name the metric goes by when nothing names it. */
const PICKLED_METRIC = 'metric';

function epochOf(name: string): number | null {
	const match = EPOCH_FILE.exec(name);
	return match ? Number(match[1]) : null;
}

/** The direction model_best.pth.tar shows: its metric the lowest of the kept ones (min) or the highest (max). */
function directionShown(best: number | null, kept: readonly number[]): MonitorSetting['mode'] {
	const others = kept.filter(value => value !== best);
	if (best === null || others.length === 0) return null;
	if (others.every(value => best < value)) return 'min';
	return others.every(value => best > value) ? 'max' : null;
}

/**
 * The run with what its checkpoint files say: scores summary.csv lacks, train.py's arguments args.yaml would have
 * held, the direction of a metric nothing names. Reads only the files a question is left for. Never throws.
 */
export async function withCheckpointFacts(
	run: TimmRun,
	dir: ScanDir,
	entries: readonly Entry[],
	io: LayoutIO,
): Promise<TimmRun> {
	const epochFiles = entries.filter(entry => entry.type === 'file' && EPOCH_FILE.test(entry.name));
	const needed = epochFiles.filter(entry => !run.hasArgs || !run.scores.has(epochOf(entry.name) ?? -1));
	const best = run.trainPy ? undefined : entries.find(entry => entry.name === BEST && entry.type === 'file');
	if (needed.length === 0 && best === undefined) return run;
	const saves = new Map<string, TimmSave>();
	for (const entry of best === undefined ? needed : [...needed, best]) {
		const read = await readTimmSave(io, entry);
		if (!('problem' in read)) saves.set(entry.name, read);
	}
	const scores = new Map(run.scores);
	for (const [name, save] of saves) {
		const epoch = epochOf(name);
		if (epoch !== null && save.metric !== null && !scores.has(epoch)) scores.set(epoch, save.metric);
	}
	// train.py's arguments from the newest epoch's save: the same Namespace in every one of a process's saves.
	const newest = [...saves]
		.filter(([name]) => epochOf(name) !== null)
		.sort(([a], [b]) => (epochOf(b) ?? 0) - (epochOf(a) ?? 0))[0];
	const facts: DeclaredFact[] = [...(run.declared?.facts ?? [])];
	let monitor = run.monitor;
	let keep = run.declared?.keep ?? null;
	let from = run.declared?.from ?? '';
	if (newest !== undefined && !run.hasArgs) {
		const [name, save] = newest;
		const file = relName(dir, name);
		if (save.checkpointHist !== null) {
			facts.push({key: 'args.checkpoint_hist', value: String(save.checkpointHist), from: file});
			keep ??= save.checkpointHist;
			from = `${file} args.checkpoint_hist`;
		}
		if (save.evalMetric !== null) {
			facts.push({key: 'args.eval_metric', value: `'${save.evalMetric}'`, from: file});
			// A run without an eval loader ranks by train loss (summary.csv says so), whatever eval_metric says.
			const name = run.monitor.name === 'loss' ? 'loss' : save.evalMetric;
			monitor = {
				name,
				mode: name === 'loss' ? 'min' : 'max',
				modeFrom: `${file} args.eval_metric (train.py: only loss decreases)`,
			};
		}
	}
	// train.py's eval_metric names the metric and its direction: model_best is asked only when nothing does.
	if (best !== undefined && monitor === run.monitor) {
		const bestMetric = saves.get(BEST)?.metric ?? null;
		const kept = epochFiles.flatMap(entry => {
			const score = scores.get(epochOf(entry.name) ?? -1);
			return score === undefined ? [] : [score];
		});
		const mode = directionShown(bestMetric, kept);
		const shown =
			mode === null
				? null
				: `${BEST} metric ${bestMetric}: the ${mode === 'min' ? 'lowest' : 'highest'} kept (inferred)`;
		monitor = {name: PICKLED_METRIC, mode, modeFrom: shown};
		if (bestMetric !== null) facts.push({key: `${BEST} metric`, value: String(bestMetric), from: relName(dir, BEST)});
		if (shown !== null)
			facts.push({
				key: 'decreasing',
				value: mode === 'min' ? 'True' : 'False',
				from: relName(dir, BEST),
				inferred: true,
			});
	}
	return {...run, scores, monitor, declared: {keep, from, monitor, facts}};
}
