// PyTorch Lightning: `*.ckpt` in `lightning_logs/version_N/checkpoints/`, `dirpath` or `default_root_dir`.
//   ModelCheckpoint names each save by its template, `{epoch}-{step}` by default, each field written `name=value`
//   (auto_insert_metric_name): epoch=2-step=300.ckpt, epoch=2-step=300-val_loss=0.32.ckpt; a name already taken gets
//   -v1, -v2… A `last` save is last.ckpt (last-v1.ckpt when taken): a symlink to the newest save (save_last='link')
//   or a full copy. SLURM's SIGUSR1 handler saves hpc_ckpt_N.ckpt in default_root_dir; OnExceptionCheckpoint writes
//   on_exception.ckpt. DeepSpeed saves a `.ckpt` DIRECTORY (engine.save_checkpoint, tag `checkpoint`, `latest`
//   written last); FSDP/ModelParallel sharded saves one too (DCP shards + .metadata, then meta.pt last).
// Partial: a file without its zip end record (torch.save goes through an fsspec transaction, so a cut-off file is one
//   copied in place across file systems, or written by a Lightning before _atomic_save); a directory without
//   `latest` (DeepSpeed) or `meta.pt` (sharded); a dangling last.ckpt symlink.
// Retention: top-k keeps the k best by `monitor` and deletes the WORST when a better one is saved
//   (_update_best_and_save); with monitor=None, save_top_k 1 deletes the previous save (_save_none_monitor_checkpoint);
//   -1 keeps all. last, hpc and on_exception saves are outside the rotation.
// Source: Lightning-AI/pytorch-lightning src/lightning/pytorch/callbacks/model_checkpoint.py: ModelCheckpoint.
// format_checkpoint_name, _format_checkpoint_name, _get_metric_interpolated_filepath_name, _save_last_checkpoint,
// _link_checkpoint, _update_best_and_save, _save_none_monitor_checkpoint, _remove_checkpoint;
// trainer/connectors/checkpoint_connector.py: hpc_save_path; callbacks/on_exception_checkpoint.py;
// strategies/deepspeed.py and strategies/fsdp.py: save_checkpoint; fabric/utilities/cloud_io.py: _atomic_save.

import path from 'node:path';
import type {CheckpointMetric, MonitorSetting} from '../../core/types.js';
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

async function findOne(entry: Entry, monitor: MonitorSetting | null, io: LayoutIO): Promise<Found> {
	const kind = kindOf(entry.name);
	const source = kind === 'last' ? nameCarryingFields(entry) : entry.name;
	const name = parseFields(source.replace(/\.ckpt$/, ''));
	const {status, warnings} = await judge(entry, io);
	// A last.ckpt copy names no score of its own; a link's target's score is the target's, ranked there.
	const metric = kind === 'periodic' ? metricOf(name, monitor) : null;
	return found(entry, {step: name.step, epoch: name.epoch, kind, metric, status, warnings});
}

const ranked = topK({framework: 'Lightning', setting: 'save_top_k', protects: c => c.kind !== 'periodic'});

/**
 * Top-k by the monitored metric (rules.ts topK); save_top_k -1 keeps every checkpoint. A group of last, hpc and
 * exception saves only (hpc_ckpt_N.ckpt in default_root_dir) has nothing the top-k ranks: its rule says so.
 */
const lightningRetention: RetentionRule = input => {
	if (input.checkpoints.some(c => c.kind === 'periodic')) return ranked(input);
	const rule = 'Lightning last, hpc and exception saves: outside the top-k, never deleted by it';
	return {rule, counted: [], toPrune: [], protected: [...input.checkpoints], keep: null};
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
		const monitor = config.declared?.monitor ?? null;
		const result: Found[] = [];
		for (const entry of mine) result.push(await findOne(entry, monitor, io));
		return {found: result, warnings: config.warnings, declared: config.declared};
	},
	retention: lightningRetention,
};
