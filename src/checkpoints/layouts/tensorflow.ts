// TensorFlow's CheckpointManager (and tf.train.Checkpoint.save, TF1 Saver): a checkpoint is a PREFIX, `ckpt-<N>`,
// shared by several files: `ckpt-N.index`, `ckpt-N.data-0000K-of-0000M` (K = 0…M−1), and for TF1 `ckpt-N.meta`.
// Write order: the shards go to `ckpt-N_temp/part-…` (functional_saver.MultiDeviceSaver.save), are merged and
// renamed into `ckpt-N.index` + `ckpt-N.data-…` (MergeV2Checkpoints, which then removes `ckpt-N_temp`), and only
// then does the write-done callback record it in the `checkpoint` text-proto state file (written atomically:
// model_checkpoint_path, all_model_checkpoint_paths oldest first, their timestamps), sweep, and record again.
// Partial: a `ckpt-N_temp` leftover, the index or a data shard missing, or a checkpoint the state file does not list
// that is newer than its model_checkpoint_path (or with no state file at all): its save has not finished.
// An older one the state file does not list was dropped from the manager's active set without being deleted
// (keep_checkpoint_every_n_hours preserved it, or another writer left it): the manager never deletes it.
// One Found per checkpoint: its entry is the prefix `ckpt-N` with the bytes and newest mtime of all its files (no
// single file stands for it: the index is a few KB of a checkpoint of GBs), or the `_temp` directory while one is there.
// Source: tensorflow/tensorflow tensorflow/python/checkpoint/checkpoint_management.py: CheckpointManager.__init__,
// save, _record_state, _sweep, update_checkpoint_state_internal, get_checkpoint_state;
// tensorflow/python/checkpoint/functional_saver.py: MultiDeviceSaver.save.

import path from 'node:path';
import {isLastOrBest, keepNewest, type RetentionRule} from '../rules.js';
import {
	found,
	intOf,
	NOTHING,
	relName,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';

/** ckpt-12.index, ckpt-12.data-00000-of-00002, model.ckpt-12.meta, ckpt-12_temp. */
const PART = /^(.+-(\d+))\.(index|meta|data-(\d{5})-of-(\d{5}))$/;
const TEMP = /^(.+-(\d+))_temp$/;
export const UNTRACKED =
	'not in the `checkpoint` state file, older than its latest: outside the manager’s active set, never deleted by it';

/** Bigger state files are not read: max_to_keep=None lists every save, ~60 bytes each. */
const MAX_STATE_BYTES = 4 * 1024 * 1024;
const STRING_FIELD = /^\s*(model_checkpoint_path|all_model_checkpoint_paths)\s*:\s*"((?:[^"\\]|\\.)*)"\s*$/;
const NUMBER_FIELD = /^\s*(all_model_checkpoint_timestamps|last_preserved_timestamp)\s*:\s*([-+0-9.eE]+)\s*$/;

/** What the `checkpoint` state file says, by checkpoint name (the basename of each path, as written relative). */
interface CheckpointState {
	/** Each listed checkpoint's save time in epoch ms, null when the file gives none (TF1 Saver before 1.x). */
	readonly paths: Map<string, number | null>;
	/** The step of model_checkpoint_path, the newest save the manager finished. */
	readonly latestStep: number | null;
}

function unquote(text: string): string {
	return text.replace(/\\(.)/g, '$1');
}

/** Parses the text proto CheckpointState (update_checkpoint_state_internal writes it with MessageToString). */
export function parseCheckpointState(text: string): CheckpointState | string {
	let latest: string | null = null;
	const listed: string[] = [];
	const times: number[] = [];
	for (const [index, line] of text.split('\n').entries()) {
		if (line.trim() === '') continue;
		const string = STRING_FIELD.exec(line);
		const number = NUMBER_FIELD.exec(line);
		if (string?.[1] === 'model_checkpoint_path') latest = path.basename(unquote(string[2]!));
		else if (string) listed.push(path.basename(unquote(string[2]!)));
		else if (number?.[1] === 'all_model_checkpoint_timestamps') times.push(Number(number[2]));
		// By its number, not its text: a run dir file's contents never go into a message.
		else if (!number) return `line ${index + 1} is not a field of a CheckpointState`;
	}
	if (latest === null) return 'no model_checkpoint_path';
	const paths = new Map<string, number | null>();
	for (const [i, name] of listed.entries()) {
		const seconds = times.length === listed.length ? times[i]! : Number.NaN;
		paths.set(name, Number.isFinite(seconds) ? Math.round(seconds * 1000) : null);
	}
	if (!paths.has(latest)) paths.set(latest, null);
	return {paths, latestStep: intOf(/-(\d+)$/.exec(latest)?.[1])};
}

async function readCheckpointState(file: string, io: LayoutIO): Promise<CheckpointState | string> {
	const text = await io.readText(file, MAX_STATE_BYTES);
	if (text === null) return 'cannot be read';
	return parseCheckpointState(text);
}

interface Prefix {
	readonly name: string;
	readonly step: number;
	index?: Entry;
	temp?: Entry;
	readonly data: Map<number, Entry>;
	readonly others: Entry[];
	shards: number | null;
}

function groupFiles(entries: readonly Entry[]): Map<string, Prefix> {
	const prefixes = new Map<string, Prefix>();
	const prefixOf = (name: string, step: string | undefined): Prefix | null => {
		const number = intOf(step);
		if (number === null) return null;
		let prefix = prefixes.get(name);
		if (prefix === undefined) {
			prefix = {name, step: number, data: new Map(), others: [], shards: null};
			prefixes.set(name, prefix);
		}
		return prefix;
	};
	for (const entry of entries) {
		const temp = TEMP.exec(entry.name);
		if (temp !== null && entry.type === 'dir') {
			const prefix = prefixOf(temp[1]!, temp[2]);
			if (prefix) prefix.temp = entry;
			continue;
		}
		const part = PART.exec(entry.name);
		if (part === null || entry.type === 'dir' || entry.type === 'other') continue;
		const prefix = prefixOf(part[1]!, part[2]);
		if (prefix === null) continue;
		if (part[3] === 'index') prefix.index = entry;
		else if (part[3] === 'meta') prefix.others.push(entry);
		else {
			prefix.data.set(Number(part[4]), entry);
			prefix.shards = Math.max(prefix.shards ?? 0, Number(part[5]));
		}
	}
	return prefixes;
}

/** Why the prefix's files do not make a whole checkpoint; empty when they do. */
function filesProblems(prefix: Prefix): string[] {
	const problems: string[] = [];
	if (!prefix.index) problems.push(`no ${prefix.name}.index: the save did not finish`);
	const shards = prefix.shards;
	if (shards === null) problems.push(`no ${prefix.name}.data-* shard`);
	else {
		const missing: string[] = [];
		for (let k = 0; k < shards; k++) if (!prefix.data.has(k)) missing.push(String(k).padStart(5, '0'));
		if (missing.length > 0) problems.push(`data shard ${missing.join(', ')} of ${shards} missing`);
	}
	for (const entry of [prefix.index, ...prefix.data.values()]) {
		if (entry?.type === 'missing') problems.push(`${entry.name}: dangling symlink`);
	}
	return problems;
}

/** The checkpoint as one entry: the prefix path, with the bytes, the first birth and the newest mtime of its files. */
function prefixEntry(dir: ScanDir, prefix: Prefix): Entry {
	const files = [prefix.index, ...prefix.data.values(), ...prefix.others].filter((e): e is Entry => e !== undefined);
	const size = files.reduce((sum, e) => sum + e.size, 0);
	const mtimeMs = Math.max(...files.map(e => e.mtimeMs));
	const births = files.map(e => e.birthtimeMs).filter(ms => ms > 0);
	return {
		name: prefix.name,
		path: path.join(dir.path, prefix.name),
		type: 'file',
		symlink: false,
		linkTarget: null,
		size,
		mtimeMs,
		birthtimeMs: births.length > 0 ? Math.min(...births) : 0,
	};
}

function judge(prefix: Prefix, state: CheckpointState | null): {status: Found['status']; warnings: string[]} {
	// A `_temp` directory says it all: the shards are still there, not merged into the prefix's files.
	if (prefix.temp) return {status: 'partial', warnings: [`${prefix.temp.name} left behind: the save did not finish`]};
	const warnings = filesProblems(prefix);
	const listed = state?.paths.get(prefix.name);
	if (listed === undefined) {
		const latest = state?.latestStep ?? null;
		if (latest === null || prefix.step > latest) {
			const why = state === null ? 'no `checkpoint` state file yet' : 'not yet in the `checkpoint` state file';
			warnings.push(`${why}: the save has not finished`);
		} else if (warnings.length === 0) return {status: 'complete', warnings: [UNTRACKED]};
	}
	return {status: warnings.length === 0 ? 'complete' : 'partial', warnings};
}

export const tensorflowLayout: Layout = {
	name: 'tensorflow',
	title: 'TensorFlow CheckpointManager',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const prefixes = groupFiles(dir.entries);
		if (prefixes.size === 0) return NOTHING;
		const stateEntry = dir.entries.find(entry => entry.name === 'checkpoint' && entry.type === 'file');
		const read = stateEntry ? await readCheckpointState(stateEntry.path, io) : null;
		const warnings = typeof read === 'string' ? [`${relName(dir, 'checkpoint')}: ${read}`] : [];
		const state = typeof read === 'string' ? null : read;
		const result: Found[] = [];
		for (const prefix of prefixes.values()) {
			const {status, warnings: own} = judge(prefix, state);
			const entry = prefix.temp ?? prefixEntry(dir, prefix);
			// The manager's own timestamp of the save, where the state file has it.
			const time = state?.paths.get(prefix.name) ?? null;
			result.push(found(entry, {step: prefix.step, kind: 'periodic', time, status, warnings: own}));
		}
		return {found: result, warnings, declared: null};
	},
	retention: tfRetention(),
};

/** Keep the newest max_to_keep of the active set (what the state file lists); the untracked ones are never deleted. */
function tfRetention(): RetentionRule {
	const base = keepNewest({
		framework: 'TF CheckpointManager',
		setting: 'max_to_keep',
		protects: c => isLastOrBest(c) || c.warnings.includes(UNTRACKED),
	});
	return input => {
		const plan = base(input);
		const preserved = input.checkpoints.some(c => c.warnings.includes(UNTRACKED));
		// A manager that preserved some before may preserve the oldest again rather than delete it.
		const note = preserved && input.keep !== null ? ', keep_checkpoint_every_n_hours may spare the oldest' : '';
		return {...plan, rule: `${plan.rule}${note}`};
	};
}
