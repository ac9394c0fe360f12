// timm train.py: CheckpointSaver writes every save to `tmp.pth.tar` with torch.save, os.replace()s it to
// `last.pth.tar`, then, when the epoch's score makes the top max_history (or fewer are kept yet), hardlinks it (copy2
// where links fail) as `checkpoint-<E>.pth.tar` and, on a new best, as `model_best.pth.tar`. Recovery saves go to
// `recovery_tmp.pth.tar`, renamed `recovery-<E>-<B>.pth.tar`. Partial: a `tmp.pth.tar` or `recovery_tmp.pth.tar`
// left behind (not renamed: the save was cut off), or a file without its zip end record (a copy2 cut off).
// Retention: once max_history are kept, a save that beats the worst deletes the worst (top-N by the eval metric;
// lower is better only for `loss`); a recovery save deletes the recovery file before the current one, so two stay.
// The saver's list lives in memory: after a restart it forgets the checkpoints written before and never deletes them.
// Scores: summary.csv's (see below), else the `metric` each checkpoint pickles (timm-declared.ts), which also reads
// train.py's arguments from the pickle when args.yaml is missing, and infers the direction of a saver used without
// train.py from model_best.pth.tar. max_history itself is stored nowhere but args.yaml / the pickled args.
// Source: huggingface/pytorch-image-models 1.0.29 (the recorded tree test/fixtures/frameworks/recorded/timm-saver)
// timm/utils/checkpoint_saver.py: CheckpointSaver.save_checkpoint, _save,
// _replace, _duplicate, _cleanup_checkpoints, save_recovery; train.py: main (output_dir, args.yaml, summary.csv,
// eval_metric, decreasing_metric = eval_metric == 'loss', max_history=args.checkpoint_hist); timm/utils/summary.py:
// update_summary.
//
// Beside the checkpoints: `args.yaml` (yaml.safe_dump of the arguments, written once at start: checkpoint_hist is
// max_history, eval_metric the score ranked) and `summary.csv` (a row per epoch appended by update_summary BEFORE that
// epoch's save_checkpoint, a header each time a process starts). The score of checkpoint-<E>.pth.tar is row E's
// eval_<metric>, or train_<metric> when the run has no eval loader (train.py then ranks by train loss).

import path from 'node:path';
import type {CheckpointMetric, MonitorSetting, ScannedCheckpoint} from '../../core/types.js';
import {compareAge, isLastOrBest, topK, type RetentionPlan, type RuleInput} from '../rules.js';
import {judgeFile} from './file-checks.js';
import {
	found,
	intOf,
	isRecord,
	NOTHING,
	relName,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';
import {parseYaml} from './parse-yaml.js';
import {withCheckpointFacts} from './timm-declared.js';
import type {TimmRun} from './timm-run.js';

const ARGS = 'args.yaml';
const SUMMARY = 'summary.csv';
/** args.yaml is a few KiB; summary.csv some 200 bytes an epoch, so 4 MiB holds ~20,000 epochs. */
const MAX_ARGS_BYTES = 256 * 1024;
const MAX_SUMMARY_BYTES = 4 * 1024 * 1024;
/** train.py's --eval-metric default. */
const DEFAULT_METRIC = 'top1';

interface Args {
	readonly hist: number | null;
	readonly metric: string | null;
}

async function readArgs(dir: ScanDir, io: LayoutIO, warnings: string[]): Promise<Args | null> {
	const text = await io.readText(path.join(dir.path, ARGS), MAX_ARGS_BYTES);
	if (text === null) return null;
	let value: unknown;
	try {
		value = await parseYaml(text);
	} catch {
		warnings.push(`${relName(dir, ARGS)}: not valid YAML`);
		return null;
	}
	if (!isRecord(value)) return null;
	const hist = value.checkpoint_hist;
	const metric = value.eval_metric;
	return {
		hist: typeof hist === 'number' && Number.isInteger(hist) && hist >= 1 ? hist : null,
		metric: typeof metric === 'string' && metric !== '' ? metric : null,
	};
}

interface Summary {
	readonly rows: Map<number, Record<string, string>>;
	readonly headers: number;
	readonly resumedAt: number | null;
	readonly hasEval: boolean;
}

function parseSummary(text: string): Summary {
	const rows = new Map<number, Record<string, string>>();
	let columns: string[] | null = null;
	let headers = 0;
	let resumedAt: number | null = null;
	let newHeader = false;
	let hasEval = false;
	for (const line of text.split(/\r?\n/)) {
		const cells = line.split(',');
		if (cells[0] === 'epoch') {
			columns = cells;
			headers += 1;
			newHeader = true;
			hasEval ||= cells.some(cell => cell.startsWith('eval_'));
			continue;
		}
		const epoch = Number(cells[0]);
		if (columns === null || line === '' || !Number.isInteger(epoch)) continue;
		if (newHeader) resumedAt = epoch;
		newHeader = false;
		// A re-run epoch (after a restart) replaces the earlier row: its save overwrote checkpoint-<E> too.
		rows.set(epoch, Object.fromEntries(columns.map((name, i) => [name, cells[i] ?? ''])));
	}
	return {rows, headers, resumedAt: headers > 1 ? resumedAt : null, hasEval};
}

/** args.yaml and summary.csv of a timm output dir, read only when the dir holds timm checkpoints. Never throws. */
async function readTimmRun(dir: ScanDir, io: LayoutIO): Promise<TimmRun> {
	const warnings: string[] = [];
	const args = await readArgs(dir, io, warnings);
	const text = await io.readText(path.join(dir.path, SUMMARY), MAX_SUMMARY_BYTES);
	const summary = text === null ? null : parseSummary(text);
	// Without an eval loader train.py ranks by train loss, whatever --eval-metric says.
	const name =
		summary !== null && !summary.hasEval && summary.rows.size > 0 ? 'loss' : (args?.metric ?? DEFAULT_METRIC);
	const column = summary?.hasEval === false ? `train_${name}` : `eval_${name}`;
	const scores = new Map<number, number>();
	for (const [epoch, row] of summary?.rows ?? []) {
		const value = Number(row[column]);
		if (row[column] !== undefined && row[column] !== '' && Number.isFinite(value)) scores.set(epoch, value);
	}
	const modeFrom = args?.metric ? `${ARGS} eval_metric (train.py: only loss decreases)` : 'timm train.py default';
	const monitor: MonitorSetting = {name, mode: name === 'loss' ? 'min' : 'max', modeFrom};
	// The monitor is train.py's rule, not a guess: declared even without args.yaml.
	const declared = {keep: args?.hist ?? null, from: `${ARGS} checkpoint_hist`, monitor};
	const trainPy = args !== null || summary !== null;
	return {declared, monitor, scores, resumedAt: summary?.resumedAt ?? null, trainPy, hasArgs: args !== null, warnings};
}

const EPOCH_FILE = /^checkpoint-(\d+)\.pth\.tar$/;
const RECOVERY = /^recovery-(\d+)-(\d+)\.pth\.tar$/;
const LAST = 'last.pth.tar';
const BEST = 'model_best.pth.tar';
const TMP = 'tmp.pth.tar';
const RECOVERY_TMP = 'recovery_tmp.pth.tar';

function isTimmName(name: string): boolean {
	return EPOCH_FILE.test(name) || RECOVERY.test(name) || [LAST, BEST, TMP, RECOVERY_TMP].includes(name);
}

/** A staging file: always partial, whatever its bytes say. */
function staging(entry: Entry, renamedTo: string): Found {
	const why = `${entry.name} is renamed to ${renamedTo} when the save is done: still here, so the save did not finish`;
	return found(entry, {status: 'partial', warnings: [why]});
}

/**
 * last.pth.tar and model_best.pth.tar are hard links to (or copy2 copies of) a checkpoint-<E>.pth.tar: same size and
 * mtime. That epoch when exactly one matches.
 */
function epochOfCopy(entry: Entry, epochFiles: readonly Found[]): number | null {
	const same = epochFiles.filter(f => f.entry.size === entry.size && f.entry.mtimeMs === entry.mtimeMs);
	return same.length === 1 ? (same[0]?.epoch ?? null) : null;
}

async function epochFile(entry: Entry, epoch: number | null, run: TimmRun, io: LayoutIO): Promise<Found> {
	const judged = await judgeFile(entry, io);
	const warnings = [...judged.warnings];
	const score = epoch === null ? undefined : run.scores.get(epoch);
	let metric: CheckpointMetric | null = score === undefined ? null : {name: run.monitor.name, value: score};
	if (epoch !== null && run.resumedAt !== null && epoch < run.resumedAt) {
		// Outside the restarted saver's list: it will never be deleted, so it is not ranked.
		metric = null;
		warnings.push(`written before the run restarted at epoch ${run.resumedAt}: the saver no longer tracks it`);
	} else if (score === undefined) {
		warnings.push(`no ${run.monitor.name} for epoch ${epoch} in summary.csv nor in the checkpoint: not ranked`);
	}
	return found(entry, {epoch, kind: 'periodic', metric, status: judged.status, warnings});
}

const ranked = topK({
	framework: 'timm',
	setting: 'max_history',
	protects: c => !EPOCH_FILE.test(c.name),
});

/** The recovery file the next recovery save deletes: the older of the newest two. */
function recoveryToPrune(checkpoints: readonly ScannedCheckpoint[]): ScannedCheckpoint[] {
	const recovery = checkpoints.filter(c => RECOVERY.test(c.name) && c.status === 'complete').sort(compareAge);
	return recovery.length >= 2 ? recovery.slice(-2, -1) : [];
}

function timmRetention(input: RuleInput): RetentionPlan {
	const plan = ranked(input);
	const recovery = recoveryToPrune(input.checkpoints);
	const rule = recovery.length > 0 ? `${plan.rule}; recovery: newest 2 kept` : plan.rule;
	return {...plan, rule, toPrune: [...plan.toPrune, ...recovery], protected: plan.protected.filter(isLastOrBest)};
}

export const timmLayout: Layout = {
	name: 'timm',
	title: 'timm (pytorch-image-models)',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const mine = dir.entries.filter(entry => entry.type === 'file' && isTimmName(entry.name));
		if (mine.length === 0) return NOTHING;
		const run = await withCheckpointFacts(await readTimmRun(dir, io), dir, mine, io);
		const epochFiles: Found[] = [];
		for (const entry of mine) {
			const match = EPOCH_FILE.exec(entry.name);
			if (match) epochFiles.push(await epochFile(entry, intOf(match[1]), run, io));
		}
		const result: Found[] = [...epochFiles];
		for (const entry of mine) {
			if (entry.name === TMP) result.push(staging(entry, LAST));
			else if (entry.name === RECOVERY_TMP) result.push(staging(entry, 'recovery-<epoch>-<batch>.pth.tar'));
			else if (EPOCH_FILE.test(entry.name)) continue;
			else {
				const judged = await judgeFile(entry, io);
				const recovery = RECOVERY.exec(entry.name);
				const copy: Found['kind'] = entry.name === LAST ? 'last' : 'best';
				const fields = recovery
					? {epoch: intOf(recovery[1]), kind: 'periodic' as const}
					: {epoch: epochOfCopy(entry, epochFiles), kind: copy};
				result.push(found(entry, {...fields, status: judged.status, warnings: judged.warnings}));
			}
		}
		return {found: result, warnings: run.warnings, declared: run.declared};
	},
	retention: timmRetention,
};
