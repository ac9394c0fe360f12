// The seed layout (and the demo job's, demo/job/checkpointing.py):
//   checkpoints/checkpoint_step_<N>_<YYYYmmdd_HHMMSS>/      final name after an atomic rename: complete
//     meta.json                                             {step, epoch, kind | reason, time, …}, written before the
//                                                            rename (the demo writes it; other seed jobs may not)
//   checkpoints/checkpoint_step_<N>_<YYYYmmdd_HHMMSS>.tmp/  a save in progress or one that was killed: partial
//   checkpoints/checkpoint_metadata.json                    {checkpoints: [{step, epoch, timestamp, checkpoint_path,
//                                                            kind | reason}], latest_checkpoint, max_checkpoints}
//   state.pt, emergency_state.pt (+ .tmp while written)     a single training-state file (the preemption variant);
//                                                            a checkpoint_metadata.json beside it may name it too
// Rotation: the oldest checkpoint_step_* directories beyond max_checkpoints go after each save; the state files are
// overwritten in place, outside it.
// Source: this project's demo/job/checkpointing.py: save_checkpoint, _update_metadata (which rotates), after the seed
// tool it follows.

import path from 'node:path';
import type {CheckpointKind} from '../../core/types.js';
import {
	found,
	hasZipEnd,
	intOf,
	isRecord,
	NOTHING,
	numberOf,
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
import {kindFromReason} from './save-reason.js';
import {isLastOrBest, keepNewest} from '../rules.js';

const METADATA_FILE = 'checkpoint_metadata.json';
const DIR_META_FILE = 'meta.json';
const STEP_DIR = /^checkpoint_step_(\d+)(?:_\d{8}_\d{6})?(\.tmp)?$/;
const STATE_FILE = /^(emergency_)?state\.pt(\.tmp)?$/;
const KINDS: readonly CheckpointKind[] = ['periodic', 'manual', 'emergency'];

interface MetaEntry {
	readonly epoch: number | null;
	readonly kind: CheckpointKind;
	/** Its free-text `reason`, when it has one. */
	readonly reason: string | null;
	readonly time: number | null;
	/** A time text that is not a date, for the warning; null when the time is fine or absent. */
	readonly badTime: string | null;
}

interface Metadata {
	readonly byName: ReadonlyMap<string, MetaEntry>;
	readonly declaredKeep: number | null;
}

/**
 * An entry's kind: its `kind` when that is one the seed writes, else what its free-text `reason` says (jobs that
 * record why they saved rather than a kind: "SIGTERM", "user request"…), else unknown.
 */
function kindOf(item: Record<string, unknown>): CheckpointKind {
	const kind = KINDS.find(known => known === item.kind);
	if (kind !== undefined) return kind;
	return typeof item.reason === 'string' ? kindFromReason(item.reason) : 'unknown';
}

/** Epoch, kind and time of one save, from a metadata entry (time under `timestamp`) or a meta.json (`time`). */
function entryOf(item: Record<string, unknown>, timeKey: 'timestamp' | 'time'): MetaEntry {
	const text = item[timeKey];
	const parsed = typeof text === 'string' ? Date.parse(text) : Number.NaN;
	const time = Number.isNaN(parsed) ? null : parsed;
	const badTime = time === null && typeof text === 'string' ? text : null;
	const reason = typeof item.reason === 'string' ? item.reason : null;
	return {epoch: numberOf(item.epoch), kind: kindOf(item), reason, time, badTime};
}

/** The metadata's entries by checkpoint directory name, or a warning text when the file is unusable. */
function parseMetadata(value: unknown): Metadata | string {
	if (!isRecord(value)) return 'expected a JSON object';
	const list = value.checkpoints ?? [];
	if (!Array.isArray(list)) return '"checkpoints" is not a list';
	const byName = new Map<string, MetaEntry>();
	for (const item of list) {
		if (!isRecord(item) || typeof item.checkpoint_path !== 'string') continue;
		const name = path.posix.basename(item.checkpoint_path.replace(/\/+$/, ''));
		byName.set(name, entryOf(item, 'timestamp'));
	}
	const keep = value.max_checkpoints;
	const declaredKeep = typeof keep === 'number' && Number.isSafeInteger(keep) && keep > 0 ? keep : null;
	return {byName, declaredKeep};
}

/**
 * A complete step directory's own meta.json, for one the metadata does not name. The demo renames the directory into
 * place before checkpoint_metadata.json names it, so without this a scan in that gap reads its kind as unknown (and
 * awaitSave calls a manual save possibly periodic); a malformed metadata file falls back to it too.
 */
async function dirMeta(entry: Entry, io: LayoutIO): Promise<MetaEntry | string | null> {
	const read = await io.readJson(path.join(entry.path, DIR_META_FILE));
	if (read.status === 'missing') return null; // seed jobs other than the demo need not write one
	if (read.status === 'error') return read.error;
	return isRecord(read.value) ? entryOf(read.value, 'time') : 'expected a JSON object';
}

async function stepDir(entry: Entry, match: RegExpExecArray, meta: Metadata | null, io: LayoutIO): Promise<Found> {
	const step = intOf(match[1]);
	if (match[2] !== undefined) {
		return found(entry, {step, status: 'partial', warnings: ['save in progress or interrupted (.tmp)']});
	}
	// The metadata entry wins when there is one: it is what the job wrote last about this save.
	const named = meta?.byName.get(entry.name);
	const info = named ?? (await dirMeta(entry, io));
	const file = named === undefined ? DIR_META_FILE : METADATA_FILE;
	if (info === null) return found(entry, {step});
	if (typeof info === 'string') return found(entry, {step, warnings: [`${file}: ${info}`]});
	const timeKey = named === undefined ? 'time' : 'timestamp';
	const warnings = info.badTime === null ? [] : [`${file}: ${timeKey} "${info.badTime}" is not a date`];
	const reason = info.reason === null ? {} : {reason: info.reason};
	return found(entry, {step, epoch: info.epoch, kind: info.kind, time: info.time, warnings, ...reason});
}

async function stateFile(entry: Entry, match: RegExpExecArray, meta: Metadata | null, io: LayoutIO): Promise<Found> {
	const byName: CheckpointKind = match[1] === undefined ? 'unknown' : 'emergency';
	if (match[2] !== undefined) {
		return found(entry, {kind: byName, status: 'partial', warnings: ['being written or interrupted (.tmp)']});
	}
	// A metadata file beside it that names it (checkpoint_path "./state.pt") says what kind of save wrote it last; the
	// file name only tells the emergency variant apart.
	const info = meta?.byName.get(entry.name);
	const kind = info !== undefined && info.kind !== 'unknown' ? info.kind : byName;
	const reason = info === undefined || info.reason === null ? {} : {reason: info.reason};
	// A torch.save zip must end with its end record; a legacy pickle cannot be checked without unpickling.
	if ((await startsAsZip(io, entry.path)) && !(await hasZipEnd(io, entry.path))) {
		return found(entry, {kind, status: 'partial', warnings: [TRUNCATED], ...reason});
	}
	return found(entry, {kind, ...reason});
}

export const seedLayout: Layout = {
	name: 'seed',
	title: 'seed checkpointing',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const warnings: string[] = [];
		let meta: Metadata | null = null;
		if (dir.entries.some(entry => entry.name === METADATA_FILE)) {
			const read = await io.readJson(path.join(dir.path, METADATA_FILE));
			const parsed = read.status === 'ok' ? parseMetadata(read.value) : read.status === 'error' ? read.error : null;
			if (typeof parsed === 'string') warnings.push(`${relName(dir, METADATA_FILE)}: ${parsed}`);
			else meta = parsed;
		}
		const result: Found[] = [];
		for (const entry of dir.entries) {
			const step = STEP_DIR.exec(entry.name);
			if (step && (entry.type === 'dir' || (step[2] !== undefined && entry.type === 'file'))) {
				result.push(await stepDir(entry, step, meta, io));
				continue;
			}
			const state = STATE_FILE.exec(entry.name);
			if (state && entry.type === 'file') result.push(await stateFile(entry, state, meta, io));
		}
		if (result.length === 0 && meta === null && warnings.length === 0) return NOTHING;
		const keep = meta?.declaredKeep ?? null;
		const declared = keep === null ? null : {keep, from: `${METADATA_FILE} max_checkpoints`, monitor: null};
		return {found: result, warnings, declared};
	},
	// The seed's rotation deletes old checkpoint_step_* directories only: state.pt and emergency_state.pt are single
	// files it overwrites in place, outside max_checkpoints.
	retention: keepNewest({
		framework: 'seed',
		setting: 'max_checkpoints',
		protects: c => isLastOrBest(c) || STATE_FILE.test(c.name),
	}),
};
