// Megatron-LM: one directory per save in --save, iter_<iteration, 7 digits>/ (release/ for a converted checkpoint),
// and beside them latest_checkpointed_iteration.txt, the tracker: rank 0 rewrites it with the iteration (or
// "release") in the save's finalize step, after every rank has written (a barrier, or the async request's
// finalize_fns). So an iteration up to the tracker's is complete and a newer one is still being written or was cut
// off. Inside an iteration: the legacy format's mp_rank_<tp:02d>[_<pp:03d>][_<ep:03d>]/model_optim_rng.pt (a
// torch.save zip; distrib_optim.pt beside it), or the distributed one: DCP shards and .metadata, then (torch_dist)
// metadata.json, which dist_checkpointing.save writes in its own finalize step after every shard. Without a tracker,
// or for release/ when the tracker names a number, an iteration is judged from those files.
// Megatron deletes nothing unless run with --save-retain-interval R (the finalize step then deletes the previously
// tracked iteration unless R divides it), and R is recorded only in the pickled args inside the checkpoint.
// Non-persistent saves go to <save>/non_persistent/, outside the directories the scan reads.
// Source: NVIDIA/Megatron-LM megatron/training/checkpointing.py: get_checkpoint_name, get_checkpoint_tracker_filename,
// read_metadata, save_checkpoint (iter_finalize_fn), cleanup_old_non_persistent_checkpoint;
// megatron/core/dist_checkpointing/serialization.py: save (metadata_finalize_fn); core.py: save_config.

import path from 'node:path';
import {keepAll} from '../rules.js';
import {
	found,
	hasZipEnd,
	intOf,
	NOTHING,
	relName,
	startsAsZip,
	TRUNCATED,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';

const TRACKER = 'latest_checkpointed_iteration.txt';
const ITERATION = /^iter_(\d{7,})$/;
const RELEASE = 'release';
const RANK_DIR = /^mp_rank_\d{2}(?:_\d{3}){0,2}$/;
const MODEL_FILE = 'model_optim_rng.pt';
/** dist_checkpointing's CONFIG_FNAME, written after every shard. */
const DIST_CONFIG = 'metadata.json';
const DCP_METADATA = '.metadata';
const SHARD = /\.distcp$/;
/** Rank directories read per iteration when there is no tracker (a large model has hundreds). */
const MAX_RANK_DIRS = 64;

type Tracker = {readonly iteration: number} | {readonly release: true} | null;

/** An iteration's own entries, listed once. */
interface Listing {
	readonly names: ReadonlySet<string>;
	readonly inner: readonly Entry[];
}

async function listing(entry: Entry, io: LayoutIO): Promise<Listing> {
	const inner = (await io.list(entry.path)) ?? [];
	return {names: new Set(inner.map(e => e.name)), inner};
}

interface Verdict {
	readonly status: Found['status'];
	readonly warnings: string[];
}

const COMPLETE: Verdict = {status: 'complete', warnings: []};

function partial(why: string): Verdict {
	return {status: 'partial', warnings: [why]};
}

/** Whether an iteration's files are Megatron's own: rank directories, or dist_checkpointing's metadata.json. */
function looksLikeMegatron(files: Listing): boolean {
	return files.names.has(DIST_CONFIG) || files.inner.some(isRankDir);
}

function isRankDir(entry: Entry): boolean {
	return entry.type === 'dir' && RANK_DIR.test(entry.name);
}

/** Every legacy rank directory holds a whole model_optim_rng.pt (a zip must end with its end record). */
async function judgeRanks(ranks: readonly Entry[], io: LayoutIO): Promise<Verdict> {
	for (const rank of ranks.slice(0, MAX_RANK_DIRS)) {
		const file = path.join(rank.path, MODEL_FILE);
		const entry = await io.entry(file);
		if (entry?.type !== 'file') return partial(`${rank.name}/ has no ${MODEL_FILE}: that rank did not write it`);
		if ((await startsAsZip(io, file)) && !(await hasZipEnd(io, file))) {
			return partial(`${rank.name}/${MODEL_FILE}: ${TRUNCATED}`);
		}
	}
	return COMPLETE;
}

/** An iteration judged from its own files, as when Megatron has no tracker to go by. */
async function judgeFiles(files: Listing, distConfigExpected: boolean, io: LayoutIO): Promise<Verdict> {
	const {names, inner} = files;
	const ranks = inner.filter(isRankDir);
	if (ranks.length > 0) return judgeRanks(ranks, io);
	if (names.has(DIST_CONFIG)) return COMPLETE;
	if (names.has(DCP_METADATA)) {
		// torch_dist writes metadata.json after .metadata; torch_dcp and fsdp_dtensor never write one.
		if (!distConfigExpected) return COMPLETE;
		return partial(`no ${DIST_CONFIG} (the other iterations have one): dist_checkpointing did not finalize the save`);
	}
	if (inner.some(e => SHARD.test(e.name))) return partial(`shards without ${DCP_METADATA}: the save did not finish`);
	if (inner.length === 0) return partial('empty: the save has not written anything yet');
	return partial(`none of Megatron's files (mp_rank_*/, ${DCP_METADATA}, ${DIST_CONFIG}): the save did not finish`);
}

async function readTracker(dir: ScanDir, io: LayoutIO, warnings: string[]): Promise<Tracker> {
	if (!dir.entries.some(entry => entry.name === TRACKER && entry.type === 'file')) return null;
	const text = (await io.readText(path.join(dir.path, TRACKER), 64))?.trim() ?? null;
	// read_metadata: an integer, or the word release; anything else stops Megatron's load.
	if (text === RELEASE) return {release: true};
	const iteration = text !== null && /^\d+$/.test(text) ? intOf(text) : null;
	if (iteration !== null) return {iteration};
	// Not quoted: a run dir file's contents never go into a message.
	const said = text === null ? 'cannot be read' : 'holds neither an iteration number nor release';
	warnings.push(`${relName(dir, TRACKER)}: ${said}: each iteration is judged from its files`);
	return null;
}

/** Whether the tracker alone settles an iteration (no need to read its files): numbered ones, or release/ named. */
function trackerVerdict(step: number | null, tracker: Tracker): Verdict | null {
	if (tracker !== null && 'iteration' in tracker && step !== null) {
		if (step <= tracker.iteration) return COMPLETE;
		return partial(`newer than ${TRACKER} (${tracker.iteration}): still being written or cut off`);
	}
	if (tracker !== null && 'release' in tracker && step === null) return COMPLETE;
	return null;
}

export const megatronLayout: Layout = {
	name: 'megatron',
	title: 'Megatron-LM',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const named = dir.entries.filter(e => e.type === 'dir' && (ITERATION.test(e.name) || e.name === RELEASE));
		if (named.length === 0) return NOTHING;
		const stepOf = (entry: Entry): number | null =>
			entry.name === RELEASE ? null : intOf(ITERATION.exec(entry.name)?.[1]);
		const warnings: string[] = [];
		const hasTracker = dir.entries.some(entry => entry.name === TRACKER);
		const tracker = await readTracker(dir, io, warnings);
		const needFiles = named.filter(entry => trackerVerdict(stepOf(entry), tracker) === null);
		// Only iterations the tracker does not settle are listed (and, to know the format, their siblings).
		const files = new Map<Entry, Listing>();
		for (const entry of needFiles.length > 0 ? named : []) files.set(entry, await listing(entry, io));
		// iter_<N> and release/ are common words: without the tracker, some iteration must hold Megatron's own files.
		if (!hasTracker && ![...files.values()].some(looksLikeMegatron)) return NOTHING;
		if (!hasTracker) {
			warnings.push(`${relName(dir, TRACKER)} missing: Megatron would resume from none of these; judged from files`);
		}
		const distConfig = [...files.values()].some(listed => listed.names.has(DIST_CONFIG));
		const result: Found[] = [];
		for (const entry of named) {
			const step = stepOf(entry);
			const listed = files.get(entry);
			const verdict = trackerVerdict(step, tracker) ?? (listed ? await judgeFiles(listed, distConfig, io) : COMPLETE);
			// release/ is written by a conversion tool (tools/checkpoint), not by a training save.
			const kind = step === null ? 'manual' : 'unknown';
			result.push(found(entry, {step, status: verdict.status, kind, warnings: verdict.warnings}));
		}
		return {found: result, warnings, declared: null};
	},
	retention: keepAll('Megatron never deletes (unless --save-retain-interval, which the run dir does not record)'),
};
