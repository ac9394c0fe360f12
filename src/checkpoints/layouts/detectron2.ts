// Detectron2 / fvcore: Checkpointer.save torch.saves `<name>.pth` straight into the output dir (no temporary name),
// THEN writes the plain-text `last_checkpoint` holding that basename. PeriodicCheckpointer names its saves
// `model_<iteration:07d>.pth` (iteration 0-based: model_0004999.pth after 5000 iterations) and `model_final.pth` at
// max_iter; detectron2's BestCheckpointer writes `model_best.pth`. Partial: a file newer than the one
// `last_checkpoint` names (a greater iteration, or written after the tag: the save has not tagged it yet), the newest
// file when there is no `last_checkpoint` at all, or a file without its zip end record. Retention: with max_to_keep
// set, each periodic save deletes the oldest of its own periodic saves beyond max_to_keep (never model_final);
// DefaultTrainer leaves max_to_keep unset (never deletes); LazyConfig training passes `train.checkpointer` from the
// config that default_setup copies to `config.yaml`.
// Source: facebookresearch/fvcore fvcore/common/checkpoint.py: Checkpointer.save, tag_last_checkpoint,
// get_checkpoint_file, PeriodicCheckpointer.__init__, PeriodicCheckpointer.step; facebookresearch/detectron2
// detectron2/engine/defaults.py: default_setup (config.yaml), DefaultTrainer.build_hooks.

import path from 'node:path';
import type {DeclaredRetention} from '../../core/types.js';
import {keepNewest, type RetentionPlan, type RuleInput} from '../rules.js';
import {judgeFile} from './file-checks.js';
import {
	found,
	intOf,
	isRecord,
	nameLike,
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

const PERIODIC = /^model_(\d{7,})\.pth$/;
const FINAL = 'model_final.pth';
const BEST = 'model_best.pth';
const TAG = 'last_checkpoint';
const CONFIG = 'config.yaml';
const MAX_CONFIG_BYTES = 1024 * 1024;

/** max_to_keep from a LazyConfig config.yaml (`train.checkpointer.max_to_keep`); a yacs config has none. */
async function readDeclared(dir: ScanDir, io: LayoutIO, warnings: string[]): Promise<DeclaredRetention | null> {
	const text = await io.readText(path.join(dir.path, CONFIG), MAX_CONFIG_BYTES);
	if (text === null) return null;
	let config: unknown;
	try {
		config = await parseYaml(text);
	} catch {
		warnings.push(`${relName(dir, CONFIG)}: not valid YAML`);
		return null;
	}
	const train = isRecord(config) ? config.train : undefined;
	const checkpointer = isRecord(train) ? train.checkpointer : undefined;
	const keep = isRecord(checkpointer) ? checkpointer.max_to_keep : undefined;
	if (typeof keep !== 'number' || !Number.isInteger(keep) || keep < 1) return null;
	return {keep, from: `${CONFIG} train.checkpointer.max_to_keep`, monitor: null};
}

function kindOf(name: string, tagged: string | null): Found['kind'] {
	if (PERIODIC.test(name)) return 'periodic';
	if (name === FINAL) return 'last';
	if (name === BEST) return 'best';
	return name === tagged ? 'manual' : 'unknown';
}

interface Tag {
	readonly name: string | null;
	readonly entry: Entry | undefined;
}

/** Why a file is not finished by write order, or null when nothing says so. */
function untagged(entry: Entry, tag: Tag, newest: Entry | undefined): string | null {
	if (tag.entry === undefined) {
		return entry === newest
			? `no ${TAG}: Checkpointer.save writes it after the file, so this save did not finish`
			: null;
	}
	if (tag.name === null || entry.name === tag.name) return null;
	const step = intOf(PERIODIC.exec(entry.name)?.[1]);
	const taggedStep = intOf(PERIODIC.exec(tag.name)?.[1]);
	const later = step !== null && taggedStep !== null ? step > taggedStep : entry.mtimeMs > tag.entry.mtimeMs;
	// Quoted only when it looks like a file name: a file's other contents never go into a message.
	const named = nameLike(tag.name) ? tag.name : 'what';
	return later ? `newer than ${named}, which ${TAG} names: the save has not tagged it, so it did not finish` : null;
}

/** Newest first: by iteration where both have one, else by mtime. */
function newestOf(entries: readonly Entry[]): Entry | undefined {
	const step = (e: Entry): number => intOf(PERIODIC.exec(e.name)?.[1]) ?? -1;
	return [...entries].sort((a, b) => step(b) - step(a) || b.mtimeMs - a.mtimeMs)[0];
}

const newest = keepNewest({
	framework: 'fvcore PeriodicCheckpointer',
	setting: 'max_to_keep',
	// Only its own periodic saves enter recent_checkpoints; model_final is spared by name.
	protects: c => !PERIODIC.test(c.name),
});

function detectron2Retention(input: RuleInput): RetentionPlan {
	if (input.keep !== null) return newest(input);
	const plan = newest(input);
	const rule = 'fvcore PeriodicCheckpointer never deletes (max_to_keep unset, as in DefaultTrainer; --keep N)';
	return {...plan, rule, toPrune: [], keep: null};
}

export const detectron2Layout: Layout = {
	name: 'detectron2',
	title: 'Detectron2 (fvcore Checkpointer)',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const tagEntry = dir.entries.find(entry => entry.name === TAG && entry.type === 'file');
		const periodic = dir.entries.filter(entry => entry.type !== 'dir' && PERIODIC.test(entry.name));
		if (tagEntry === undefined && periodic.length === 0) return NOTHING;
		const warnings: string[] = [];
		let tagged: string | null = null;
		if (tagEntry !== undefined) {
			const text = await io.readText(tagEntry.path, 4096);
			tagged = text?.trim() || null;
			// fvcore writes a bare basename; a path there is another framework's tag (mmengine's CheckpointHook).
			if (tagged !== null && /[\\/]/.test(tagged)) {
				if (periodic.length === 0) return NOTHING;
				warnings.push(`${relName(dir, TAG)} holds a path, not the basename fvcore writes: not read`);
				tagged = null;
			} else if (tagged === null) warnings.push(`${relName(dir, TAG)}: empty or unreadable, cannot tell the last save`);
			else if (!dir.entries.some(entry => entry.name === tagged)) {
				// Quoted only when it looks like a file name: a file's other contents never go into a message.
				const named = nameLike(tagged) ? tagged : 'a file';
				warnings.push(`${relName(dir, TAG)} names ${named}, which is not there`);
			}
		}
		const special = new Set([FINAL, BEST, ...(tagged?.endsWith('.pth') ? [tagged] : [])]);
		const mine = dir.entries.filter(
			entry => entry.type !== 'dir' && entry.type !== 'other' && (PERIODIC.test(entry.name) || special.has(entry.name)),
		);
		if (mine.length === 0) return {found: [], warnings, declared: null};
		const tag: Tag = {name: tagged, entry: tagEntry};
		const latest = newestOf(mine);
		const result: Found[] = [];
		for (const entry of mine) {
			const judged = await judgeFile(entry, io);
			const why = untagged(entry, tag, latest);
			const status = why === null ? judged.status : 'partial';
			const step = intOf(PERIODIC.exec(entry.name)?.[1]);
			const fields = {step, kind: kindOf(entry.name, tagged), status};
			result.push(found(entry, {...fields, warnings: why === null ? judged.warnings : [why, ...judged.warnings]}));
		}
		return {found: result, warnings, declared: await readDeclared(dir, io, warnings)};
	},
	retention: detectron2Retention,
};
