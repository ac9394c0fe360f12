// NVIDIA NeMo: its ModelCheckpoint (Lightning's, extended) in `<log_dir>/checkpoints/`. exp_manager (NeMo 1) names
//   saves `{name}--{val_loss:.4f}-{epoch}` and the last one `{name}--{val_loss:.4f}-{epoch}-last`; NeMo 2's
//   NeMoLogger and recipes use `{model_name}--{val_loss:.2f}-{step}-{consumed_samples}`. A save is a `.ckpt` file,
//   or, for a distributed (Megatron) checkpoint, a DIRECTORY of the same name without `.ckpt` (ckpt_to_dir; NeMo 2
//   always: weights/ and context/ inside). With EMA a `-EMA.ckpt` copy sits beside each file.
// Partial: `_save_checkpoint` touches `<name>-unfinished` (name without .ckpt/.nemo/-EMA) before the save and the
//   finalize callback removes it after (with async save, once the background write is done); `_remove_checkpoint`
//   sets it again while deleting. So a marker beside a checkpoint means it is unfinished or half deleted; the next
//   start (setup → _remove_unfinished_checkpoints) deletes both. A `.ckpt` file without its zip end record is partial
//   too (cut off where the marker could not be written, or copied in place).
// Retention: Lightning's top-k by `monitor` (NeMo's default val_loss, min, save_top_k 3): the next better save deletes
//   the worst; `-last` saves are outside it; an EMA copy goes with its checkpoint. Unfinished ones are not ranked
//   (_remove_invalid_entries_from_topk).
// Source: NVIDIA/NeMo nemo/utils/callbacks/nemo_model_checkpoint.py: NeMoModelCheckpoint._save_checkpoint,
// _get_finalize_save_checkpoint_callback, format_checkpoint_unfinished_marker_path, _remove_checkpoint,
// _remove_unfinished_checkpoints, nemo_topk_check_previous_run, _ema_format_filepath; nemo/lightning/pytorch/callbacks/
// model_checkpoint.py (NeMo 2, same marker); nemo/lightning/ckpt_utils.py: ckpt_to_dir; nemo/utils/exp_manager.py:
// configure_checkpointing, CallbackParams; nemo/lightning/nemo_logger.py; nemo/collections/llm/recipes/log/default.py.

import path from 'node:path';
import type {ScannedCheckpoint} from '../../core/types.js';
import {topK, type RetentionRule} from '../rules.js';
import {
	found,
	hasZipEnd,
	NOTHING,
	relName,
	TRUNCATED,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';
import {metricOf, parseFields} from './lightning.js';

const UNFINISHED = '-unfinished';
/** The `{name}--{monitor}` join exp_manager and NeMoLogger put in every default name, or NeMo 2's consumed_samples. */
const NEMO_NAME = /--[A-Za-z_][\w.]*=|(?:^|-)consumed_samples=/;
const LAST = /-last(?:-v\d+)?$/;
const EMA = /-EMA$/;

interface NemoName {
	/** The name without .ckpt: what ckpt_to_dir makes the directory of a distributed save. */
	readonly stem: string;
	/** What format_checkpoint_unfinished_marker_path puts the marker at (without -EMA). */
	readonly marker: string;
	readonly ema: boolean;
}

function nemoName(entry: Entry): NemoName | null {
	if (entry.type === 'other') return null;
	const isFile = entry.type === 'file' || (entry.type === 'missing' && entry.name.endsWith('.ckpt'));
	if (isFile && !entry.name.endsWith('.ckpt')) return null;
	const stem = isFile ? entry.name.slice(0, -'.ckpt'.length) : entry.name;
	if (stem.endsWith(UNFINISHED) || !NEMO_NAME.test(stem)) return null;
	const ema = EMA.test(stem);
	return {stem, marker: `${stem.replace(EMA, '')}${UNFINISHED}`, ema};
}

async function judge(entry: Entry, name: NemoName, markers: ReadonlySet<string>, io: LayoutIO) {
	if (markers.has(name.marker)) {
		const why = `${name.marker} is there: the save did not finish (or it is being deleted); NeMo deletes it on restart`;
		return {status: 'partial' as const, warnings: [why]};
	}
	if (entry.type === 'missing') {
		return {status: 'partial' as const, warnings: [`dangling symlink to ${entry.linkTarget ?? '?'}`]};
	}
	if (entry.type === 'file' && !(await hasZipEnd(io, entry.path))) {
		return {status: 'partial' as const, warnings: [TRUNCATED]};
	}
	return {status: 'complete' as const, warnings: []};
}

function isEma(c: ScannedCheckpoint): boolean {
	return c.name.endsWith('-EMA.ckpt');
}

/** The checkpoint an EMA copy belongs to: x-EMA.ckpt → x.ckpt (_ema_format_filepath backwards). */
function emaOwner(c: ScannedCheckpoint): string {
	return path.join(path.dirname(c.path), c.name.replace(/-EMA\.ckpt$/, '.ckpt'));
}

const ranked = topK({
	framework: 'NeMo',
	setting: 'save_top_k',
	protects: c => c.kind === 'last',
	counts: (c, monitor) => c.status === 'complete' && !isEma(c) && c.metric?.name === monitor.name,
});

/** Top-k by the monitored metric; _remove_checkpoint deletes a checkpoint's EMA copy with it. */
const nemoRetention: RetentionRule = input => {
	const plan = ranked(input);
	const doomed = new Set(plan.toPrune.map(c => c.path));
	const copies = input.checkpoints.filter(c => isEma(c) && doomed.has(emaOwner(c)));
	return copies.length === 0 ? plan : {...plan, toPrune: [...plan.toPrune, ...copies]};
};

export const nemoLayout: Layout = {
	name: 'nemo',
	title: 'NVIDIA NeMo',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const markers = new Set(dir.entries.filter(e => e.name.endsWith(UNFINISHED)).map(e => e.name));
		const result: Found[] = [];
		const claimedMarkers = new Set<string>();
		for (const entry of dir.entries) {
			const name = nemoName(entry);
			if (name === null) continue;
			claimedMarkers.add(name.marker);
			const fields = parseFields(name.stem);
			const {status, warnings} = await judge(entry, name, markers, io);
			const last = LAST.test(name.stem.replace(EMA, ''));
			result.push(
				found(entry, {
					step: fields.step,
					epoch: fields.epoch,
					kind: last ? 'last' : 'periodic',
					metric: last ? null : metricOf(fields, null),
					status,
					warnings,
				}),
			);
		}
		if (result.length === 0) return NOTHING;
		// A marker with nothing beside it: the save died before writing, or a deletion finished but for the marker.
		const orphans = [...markers].filter(marker => !claimedMarkers.has(marker) && NEMO_NAME.test(marker));
		const warnings = orphans.map(marker => `${relName(dir, marker)}: unfinished-save marker without its checkpoint`);
		return {found: result, warnings, declared: null};
	},
	retention: nemoRetention,
};
