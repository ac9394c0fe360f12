// What a Lightning `.ckpt` says about the ModelCheckpoint that wrote it: each checkpoint pickles the callback's
// state_dict() under its state key (lightning-state-key.ts): monitor, best_model_score, best_model_path,
// current_score, dirpath, best_k_models (path → score tensor), kth_best_model_path, kth_value, last_model_path.
// save_top_k is not stored, so it is inferred here, and said to be:
// - with a monitor, _update_best_and_save fills best_k_models up to k and only then sets kth_best_model_path (the
//   worst kept, deleted by the next better save). kth unset: k is more than the entries. kth set: k is the entries,
//   or -1 (keep all: k grows with each save). Fewer entries than saves made tells them apart: k is the entries.
//   As many as saves made: at least that many.
// - with monitor None only -1, 0 and 1 are allowed (__validate_init_configuration); best_k_models stays empty and
//   best_model_path is the newest save. save_top_k 1 deletes the previous save at each save
//   (_save_none_monitor_checkpoint): one periodic file after two saves or more is 1; several are -1, keep all.
// Saves made: every_n_train_steps N saves at each global_step multiple of N (on_train_batch_end); every_n_epochs N at
// the end of each epoch E with (E + 1) % N == 0. A validation-only monitor on a step cadence defers a save to the
// validation end (several checks, one save): the count assumes each check saved. A time cadence gives no count.
// Source: Lightning-AI/pytorch-lightning 2.6.6 src/lightning/pytorch/callbacks/model_checkpoint.py:
// ModelCheckpoint.state_dict, _update_best_and_save, _save_none_monitor_checkpoint, check_monitor_top_k,
// on_train_batch_end, on_train_epoch_end, on_validation_end, __validate_init_configuration.

import path from 'node:path';
import type {DeclaredFact, DeclaredRetention} from '../../core/types.js';
import {parseModelCheckpointKey, type ModelCheckpointKey} from './lightning-state-key.js';

/** One callback's state as read from a checkpoint, its tensors as numbers (null: not readable). */
export interface CheckpointCallbackState {
	readonly dirpath: string | null;
	readonly bestModelPath: string | null;
	readonly kthBestModelPath: string | null;
	readonly lastModelPath: string | null;
	/** best_k_models in the dict's order. */
	readonly bestKModels: ReadonlyArray<{readonly path: string; readonly score: number | null}>;
	/** best_model_score, kth_value and current_score (tensors, or None); null: None or not readable. */
	readonly bestModelScore?: number | null;
	readonly kthValue?: number | null;
	readonly currentScore?: number | null;
}

/** What one `.ckpt` holds that this reads: its step, epoch and callback states by state key. */
export interface LightningCheckpointRead {
	/** `pytorch-lightning_version`, as the checkpoint says it. */
	readonly version?: string | null;
	readonly globalStep: number | null;
	readonly epoch: number | null;
	readonly callbacks: ReadonlyArray<readonly [string, CheckpointCallbackState]>;
}

/** The checkpoint read and the directory whose group it speaks for. */
export interface ReadContext {
	/** The `.ckpt` read, relative to the run dir: where each fact came from. */
	readonly file: string;
	/** The checkpoint directory, absolute, and relative to the run dir. */
	readonly dirPath: string;
	readonly dirRel: string;
	/** Names of the periodic (top-k) checkpoints in the directory: not last, hpc or exception saves. */
	readonly periodicNames: readonly string[];
}

export interface CallbackDeclaration {
	readonly declared: DeclaredRetention;
	/** Checkpoint name → its score in best_k_models: what top-k ranks. */
	readonly scores: ReadonlyMap<string, number>;
	/** The callback monitors nothing: names' fields are not scores. */
	readonly monitorNone: boolean;
}

interface Candidate {
	readonly key: ModelCheckpointKey;
	readonly state: CheckpointCallbackState;
	/** 3: dirpath is this directory; 2: ends with its path below the run dir (a tree copied); 1: same last name. */
	readonly match: number;
}

function matchOf(dirpath: string | null, context: ReadContext): number {
	if (dirpath === null || dirpath === '') return 0;
	const trimmed = dirpath.replace(/\/+$/, '');
	if (trimmed === context.dirPath) return 3;
	if (context.dirRel !== '' && trimmed.endsWith(`/${context.dirRel}`)) return 2;
	return path.posix.basename(trimmed) === path.basename(context.dirPath) ? 1 : 0;
}

/** The ModelCheckpoint whose dirpath is this directory, or why none is used (null: none writes here). */
function pick(read: LightningCheckpointRead, context: ReadContext): Candidate | string | null {
	const candidates: Candidate[] = [];
	for (const [text, state] of read.callbacks) {
		const key = parseModelCheckpointKey(text);
		if ('problem' in key) continue;
		candidates.push({key, state, match: matchOf(state.dirpath, context)});
	}
	const best = Math.max(0, ...candidates.map(c => c.match));
	if (best === 0) return null;
	const chosen = candidates.filter(c => c.match === best);
	if (chosen.length > 1) {
		return `${context.file}: ${chosen.length} ModelCheckpoint callbacks save to this directory: cannot tell which one wrote which checkpoint`;
	}
	return chosen[0] ?? null;
}

/** How many saves the callback has made by this checkpoint, counted low; null when its cadence gives no count. */
function savesMade(key: ModelCheckpointKey, read: LightningCheckpointRead, ownSave: boolean): number | null {
	if (key.everyNTrainSteps !== null && read.globalStep !== null) {
		return Math.floor(read.globalStep / key.everyNTrainSteps);
	}
	if (key.everyNEpochs !== null && read.epoch !== null) {
		// An epoch-end save of its own is written at epoch E before E is counted as done; any other at mid-epoch E.
		return Math.floor((read.epoch + (ownSave ? 1 : 0)) / key.everyNEpochs);
	}
	return null;
}

interface Inferred {
	readonly keep: number | 'all' | null;
	/** save_top_k as inferred, in Lightning's terms: "2", "≥ 3", "-1", "1 or -1". */
	readonly value: string;
}

function inferWithMonitor(state: CheckpointCallbackState, saves: number | null): Inferred {
	const entries = state.bestKModels.length;
	if (entries === 0) return {keep: null, value: 'unknown: best_k_models is empty'};
	if (!state.kthBestModelPath) return {keep: null, value: `> ${entries}`};
	if (saves !== null && saves > entries) return {keep: entries, value: String(entries)};
	return {keep: null, value: `≥ ${entries}`};
}

function inferWithoutMonitor(periodic: number, saves: number | null): Inferred {
	if (periodic >= 2) return {keep: 'all', value: '-1'};
	if (periodic === 1 && saves !== null && saves >= 2) return {keep: 1, value: '1'};
	return {keep: null, value: '1 or -1'};
}

/** A path as the fact shows it: its name when it is in dirpath, else as written; '' as Python writes it. */
function shown(file: string | null, dirpath: string | null): string {
	if (file === null) return 'None';
	if (file === '') return "''";
	return dirpath !== null && path.posix.dirname(file) === dirpath.replace(/\/+$/, '')
		? path.posix.basename(file)
		: file;
}

/** A score as Python prints a float, to 6 digits: 1.09970, inf, nan; '?' when it was not read. */
function scoreText(score: number | null | undefined): string {
	if (score === null || score === undefined) return '?';
	if (Number.isNaN(score)) return 'nan';
	if (!Number.isFinite(score)) return score > 0 ? 'inf' : '-inf';
	return String(Number(score.toPrecision(6)));
}

/**
 * What the checkpoint's ModelCheckpoint state declares for this directory: cadence, monitor and mode, the top-k set
 * and save_top_k inferred from it. null (no warning) when no callback saves here: a `.ckpt` read outside its
 * callback's dirpath (hpc_ckpt_N.ckpt in default_root_dir) speaks for another directory.
 */
export function declareFromCheckpoint(
	read: LightningCheckpointRead,
	context: ReadContext,
): CallbackDeclaration | {readonly problem: string} | null {
	const chosen = pick(read, context);
	if (chosen === null) return null;
	if (typeof chosen === 'string') return {problem: chosen};
	const {key, state} = chosen;
	const name = path.basename(context.file);
	const from = context.file;
	const monitorNone = key.monitor === null;
	const ownSave = monitorNone
		? path.posix.basename(state.bestModelPath ?? '') === name
		: state.bestKModels.some(entry => path.posix.basename(entry.path) === name);
	const saves = savesMade(key, read, ownSave);
	const inferred = monitorNone
		? inferWithoutMonitor(context.periodicNames.length, saves)
		: inferWithMonitor(state, saves);
	const scores = new Map<string, number>();
	for (const entry of state.bestKModels)
		if (entry.score !== null) scores.set(path.posix.basename(entry.path), entry.score);
	const facts: DeclaredFact[] = [
		...(read.version ? [{key: 'pytorch-lightning_version', value: `'${read.version}'`, from}] : []),
		...key.written.map(([setting, text]) => ({key: setting, value: text, from})),
		{key: 'dirpath', value: state.dirpath ?? 'None', from},
		{
			key: 'best_k_models',
			value:
				state.bestKModels.length === 0
					? '{}'
					: state.bestKModels.map(e => `${shown(e.path, state.dirpath)} ${scoreText(e.score)}`).join(', '),
			from,
		},
		{key: 'kth_best_model_path', value: shown(state.kthBestModelPath, state.dirpath), from},
		{key: 'kth_value', value: scoreText(state.kthValue), from},
		{key: 'best_model_score', value: monitorNone ? 'None' : scoreText(state.bestModelScore), from},
		{key: 'current_score', value: monitorNone ? 'None' : scoreText(state.currentScore), from},
		{key: 'best_model_path', value: shown(state.bestModelPath, state.dirpath), from},
		{key: 'last_model_path', value: shown(state.lastModelPath, state.dirpath), from},
		{key: 'saves made', value: saves === null ? 'unknown (time cadence)' : String(saves), from, inferred: true},
		{key: 'save_top_k', value: inferred.value, from, inferred: true},
	];
	const cadence =
		key.everyNTrainSteps === null && key.everyNEpochs === null && key.trainTimeIntervalS === null
			? null
			: {
					everySteps: key.everyNTrainSteps,
					everyEpochs: key.everyNEpochs,
					everySeconds: key.trainTimeIntervalS,
					from: `${from} ${key.className} state key`,
				};
	const declared: DeclaredRetention = {
		keep: inferred.keep,
		from: `${from} ${monitorNone ? 'periodic saves kept' : 'best_k_models'} (save_top_k ${inferred.value}, inferred)`,
		keepInferred: true,
		monitor: monitorNone ? null : {name: key.monitor ?? '', mode: key.mode, modeFrom: `${name} state key`},
		cadence,
		facts,
	};
	return {declared, scores, monitorNone};
}
