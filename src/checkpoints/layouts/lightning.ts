// PyTorch Lightning: `*.ckpt` in `lightning_logs/version_N/checkpoints/`, `dirpath` or `default_root_dir`.
//   ModelCheckpoint names each save by its template, `{epoch}-{step}` by default, each field written `name=value`
//   (auto_insert_metric_name): epoch=2-step=300.ckpt, epoch=2-step=300-val_loss=0.32.ckpt; a name already taken gets
//   -v1, -v2… A `last` save is last.ckpt (last-v1.ckpt when taken): a symlink to the newest save (save_last='link')
//   or a full copy. Its cluster environment's SIGUSR1 handler (a batch scheduler's requeue) saves hpc_ckpt_N.ckpt in
//   default_root_dir; OnExceptionCheckpoint writes
//   on_exception.ckpt. DeepSpeed saves a `.ckpt` DIRECTORY (engine.save_checkpoint, tag `checkpoint`, `latest`
//   written last); FSDP/ModelParallel sharded saves one too (DCP shards + .metadata, then meta.pt last).
// Partial: a file without its zip end record (torch.save goes through an fsspec transaction, so a cut-off file is one
//   copied in place across file systems, or written by a Lightning before _atomic_save); a directory without
//   `latest` (DeepSpeed) or `meta.pt` (sharded); a dangling last.ckpt symlink.
// Retention: top-k keeps the k best by `monitor` and deletes the WORST when a better one is saved
//   (_update_best_and_save); with monitor=None, save_top_k 1 deletes the previous save (_save_none_monitor_checkpoint);
//   -1 keeps all. last, hpc and on_exception saves are outside the rotation.
// Declared: each `.ckpt` pickles the ModelCheckpoint's state under a key naming its monitor, mode and cadence
//   (every_n_train_steps, every_n_epochs, train_time_interval), with best_k_models (path → score), kth_best_model_path
//   (the next one top-k deletes), best_model_path, last_model_path and dirpath. save_top_k is not stored: it is
//   inferred from best_k_models (lightning-callback-state.ts) and said to be. The newest complete `.ckpt` of the
//   directory is read (lightning-checkpoint-read.ts), its callback chosen by dirpath; a LightningCLI config.yaml
//   that names save_top_k wins over the inference.
// Source: Lightning-AI/pytorch-lightning 2.6.6 (the recorded trees in test/fixtures/frameworks) src/lightning/pytorch/callbacks/model_checkpoint.py: ModelCheckpoint.
// format_checkpoint_name, _format_checkpoint_name, _get_metric_interpolated_filepath_name, _save_last_checkpoint,
// _link_checkpoint, _update_best_and_save, _save_none_monitor_checkpoint, _remove_checkpoint;
// trainer/connectors/checkpoint_connector.py: hpc_save_path; callbacks/on_exception_checkpoint.py;
// strategies/deepspeed.py and strategies/fsdp.py: save_checkpoint; fabric/utilities/cloud_io.py: _atomic_save.

import path from 'node:path';
import type {CheckpointMetric, DeclaredRetention, MonitorSetting} from '../../core/types.js';
import {guessMode, topK, type RetentionRule} from '../rules.js';
import {
	found,
	hasZipEnd,
	intOf,
	NOTHING,
	TRUNCATED,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';
import type {CallbackDeclaration} from './lightning-callback-state.js';
import {readCallbackState} from './lightning-checkpoint-read.js';
import {readLightningConfig} from './lightning-config.js';

/** `last`, a templated `{epoch}-last`, and their -vN / -N versions. */
const LAST = /(?:^|-)last(?:-v?\d+)?\.ckpt$/;
const HPC = /^hpc_ckpt_(\d+)\.ckpt$/;
const ON_EXCEPTION = /^on_exception\.ckpt$/;
/** One `name=value` field: the value a number (negative, scientific) ending the name or followed by `-`. */
const FIELD = /(?:^|-)([A-Za-z_][\w.]*)=(-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)(?=-|$)/gi;
/** Lightning's own checkpoint directories: every .ckpt there is Lightning's, whatever the filename template. */
const LIGHTNING_DIR = /(?:^|\/)lightning_logs\/[^/]+\/checkpoints$/;

export interface CheckpointName {
	readonly epoch: number | null;
	readonly step: number | null;
	/** Every other numeric field, in name order: the monitored score and whatever else the template logs. */
	readonly fields: readonly CheckpointMetric[];
}

/** The `name=value` fields of a checkpoint name (extension already removed), as format_checkpoint_name writes them. */
export function parseFields(stem: string): CheckpointName {
	let epoch: number | null = null;
	let step: number | null = null;
	const fields: CheckpointMetric[] = [];
	for (const [, name = '', text = ''] of stem.matchAll(FIELD)) {
		const value = Number(text);
		if (!Number.isFinite(value)) continue;
		if (name === 'epoch') epoch = intOf(text);
		else if (name === 'step') step = intOf(text);
		else fields.push({name, value});
	}
	return {epoch, step, fields};
}

/**
 * The field the rule ranks: the declared monitor when the name carries it; else the first field that reads as a
 * score (val_loss, acc…: a template may log a learning rate or a sample count too), else the first.
 */
export function metricOf(name: CheckpointName, monitor: MonitorSetting | null): CheckpointMetric | null {
	if (monitor !== null) return name.fields.find(field => field.name === monitor.name) ?? null;
	return name.fields.find(field => guessMode(field.name).mode !== null) ?? name.fields[0] ?? null;
}

function kindOf(name: string): Found['kind'] {
	if (LAST.test(name)) return 'last';
	if (HPC.test(name)) return 'manual';
	if (ON_EXCEPTION.test(name)) return 'emergency';
	return 'periodic';
}

function isLightningName(name: string): boolean {
	if (LAST.test(name) || HPC.test(name) || ON_EXCEPTION.test(name)) return true;
	const fields = parseFields(name.slice(0, -'.ckpt'.length));
	return fields.epoch !== null || fields.step !== null || fields.fields.length > 0;
}

interface Judgement {
	readonly status: Found['status'];
	readonly warnings: string[];
}

const WHOLE: Judgement = {status: 'complete', warnings: []};

/** A DeepSpeed or sharded save: complete once the file its strategy writes last is there. */
async function judgeDir(entry: Entry, io: LayoutIO): Promise<Judgement> {
	const names = new Set((await io.names(entry.path)) ?? []);
	if (names.has('latest') || names.has('meta.pt')) return WHOLE;
	const why = names.has('.metadata')
		? 'sharded checkpoint without meta.pt (written after the shards): the save did not finish'
		: 'DeepSpeed checkpoint without `latest` (written last): the save did not finish';
	return {status: 'partial', warnings: [why]};
}

async function judge(entry: Entry, io: LayoutIO): Promise<Judgement> {
	if (entry.type === 'missing') {
		return {status: 'partial', warnings: [`dangling symlink to ${entry.linkTarget ?? '?'}: its target was deleted`]};
	}
	if (entry.type === 'dir') return judgeDir(entry, io);
	if (await hasZipEnd(io, entry.path)) return WHOLE;
	return {status: 'partial', warnings: [TRUNCATED]};
}

/** last.ckpt as a symlink (save_last='link') is the save it points at: its name says the step and epoch. */
function nameCarryingFields(entry: Entry): string {
	if (!entry.symlink || entry.linkTarget === null) return entry.name;
	return path.basename(entry.linkTarget);
}

interface JudgedFile {
	readonly entry: Entry;
	readonly kind: Found['kind'];
	readonly name: CheckpointName;
	readonly judgement: Judgement;
}

async function judgeOne(entry: Entry, io: LayoutIO): Promise<JudgedFile> {
	const kind = kindOf(entry.name);
	const source = kind === 'last' ? nameCarryingFields(entry) : entry.name;
	return {entry, kind, name: parseFields(source.replace(/\.ckpt$/, '')), judgement: await judge(entry, io)};
}

/**
 * The score top-k ranks a periodic save by: its value in best_k_models, else the monitored field of its name. A last
 * copy names no score of its own (a link's target is ranked as itself); with monitor None nothing is ranked.
 */
function metricFor(
	one: JudgedFile,
	monitor: MonitorSetting | null,
	read: CallbackDeclaration | null,
): CheckpointMetric | null {
	if (one.kind !== 'periodic' || read?.monitorNone === true) return null;
	const score = read?.scores.get(one.entry.name);
	if (score !== undefined && monitor !== null) return {name: monitor.name, value: score};
	return metricOf(one.name, monitor);
}

/** A setting config.yaml names beats one inferred from the checkpoints; what the checkpoint adds stays. */
function merged(config: DeclaredRetention | null, read: DeclaredRetention | null): DeclaredRetention | null {
	if (read === null || config === null) return read ?? config;
	if (config.keep === null) return read;
	return {...read, keep: config.keep, from: config.from, keepInferred: false, monitor: read.monitor ?? config.monitor};
}

const ranked = topK({framework: 'Lightning', setting: 'save_top_k', protects: c => c.kind !== 'periodic'});

/**
 * Top-k by the monitored metric (rules.ts topK); save_top_k -1 keeps every checkpoint; save_top_k 1 without a monitor
 * replaces the one save at each save. A group of last, hpc and exception saves only (hpc_ckpt_N.ckpt in
 * default_root_dir) has nothing the top-k ranks: its rule says so.
 */
const lightningRetention: RetentionRule = input => {
	if (!input.checkpoints.some(c => c.kind === 'periodic')) {
		const rule = 'Lightning last, hpc and exception saves: outside the top-k, never deleted by it';
		return {rule, counted: [], toPrune: [], protected: [...input.checkpoints], keep: null};
	}
	// Whether keep-N was inferred (save_top_k is not stored) the heading says, from the group's declared retention.
	const plan = ranked(input);
	if (input.keepsAll) return {...plan, rule: 'Lightning save_top_k -1: keeps all'};
	const current = plan.toPrune[0];
	if (input.monitor === null && input.keep === 1 && current !== undefined && plan.counted.length === 1) {
		const rule = `Lightning save_top_k 1, no monitor: each save replaces the last`;
		return {...plan, rule};
	}
	return plan;
};

export const lightningLayout: Layout = {
	name: 'lightning',
	title: 'PyTorch Lightning',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const anyName = LIGHTNING_DIR.test(dir.rel);
		const mine = dir.entries.filter(
			entry => entry.name.endsWith('.ckpt') && entry.type !== 'other' && (anyName || isLightningName(entry.name)),
		);
		if (mine.length === 0) return NOTHING;
		const config = await readLightningConfig(dir, io);
		const judged: JudgedFile[] = [];
		for (const entry of mine) judged.push(await judgeOne(entry, io));
		const read = await readCallbackState(
			dir,
			judged.map(one => ({entry: one.entry, kind: one.kind, step: one.name.step, status: one.judgement.status})),
			io,
		);
		const declared = merged(config.declared, read.declaration?.declared ?? null);
		const monitor = declared?.monitor ?? null;
		// A name without them (hpc_ckpt_N, a last.ckpt copy or link) takes the step and epoch its pickle holds.
		const progress = (one: JudgedFile) => read.progress.get(path.basename(nameCarryingFields(one.entry)));
		const result = judged.map(one =>
			found(one.entry, {
				step: one.name.step ?? progress(one)?.step ?? null,
				epoch: one.name.epoch ?? progress(one)?.epoch ?? null,
				kind: one.kind,
				metric: metricFor(one, monitor, read.declaration),
				status: one.judgement.status,
				warnings: one.judgement.warnings,
			}),
		);
		return {found: result, warnings: [...config.warnings, ...read.warnings], declared};
	},
	retention: lightningRetention,
};
