// torchtitan: CheckpointManager saves step-<N>/ (_create_checkpoint_id) in {dump_folder}/{checkpoint.folder}, by
// default outputs/checkpoint/, through torch.distributed.checkpoint: every rank writes its __<rank>_<n>.distcp shards
// and the coordinator writes .metadata last (via .metadata.tmp, renamed), also when async_mode hands the write to a
// thread or a process. The last step may instead be a Hugging Face save (last_save_in_hf): safetensors, consolidated
// from sharded/, and model.safetensors.index.json. A step directory is complete, as _find_load_step judges it, when it
// holds .metadata or model.safetensors.index.json; else partial. After each save _purge_stale_checkpoints lists every
// name with step-<N> in it, finished or not, sorts by N and deletes all but the newest keep_latest_k (default 10; 0
// keeps all). keep_latest_k comes from a config file the run keeps in the dump folder: a .toml train config, or the
// JSON that --job.save_config_file writes. Without one, step-<N> directories are torchtitan's only where torchtitan
// puts them by default, in a `checkpoint/` folder (keep_latest_k then from --keep); elsewhere they are left to the
// dcp layout: the name alone does not say torchtitan. The checkpoint itself declares nothing: its .metadata (torch
// 2.11, test/fixtures/frameworks/recorded/dcp-steps) pickles Metadata(state_dict_metadata, planner_data,
// storage_data, storage_meta(checkpoint_id, save_id, load_id, modules), version), no keep_latest_k nor interval.
// Source: pytorch/torchtitan torchtitan/components/checkpoint.py (at 6bc2108e9^; since then checkpointer/base.py and
// checkpointer/dcp.py): CheckpointManager.Config, save, _create_checkpoint_id, _find_load_step,
// _purge_stale_checkpoints, purge_thread, _save_last_step, dcp_save; torchtitan/config/job_config.py: maybe_log.

import path from 'node:path';
import {keepNewest, type RetentionRule} from '../rules.js';
import {
	found,
	intOf,
	isRecord,
	NOTHING,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';

/** CheckpointManager.Config's defaults (torchtitan/components/checkpoint.py, later checkpointer/base.py). */
const DEFAULT_FOLDER = 'checkpoint';
const DEFAULT_KEEP_LATEST_K = 10;

const MAX_CONFIG_BYTES = 1024 * 1024;
/** Config files read per dump folder, at most. */
const MAX_CANDIDATES = 8;

interface TitanConfig {
	/** The file's name, for the rule line. */
	readonly file: string;
	/** keep_latest_k as the file sets it; null: not set (the default applies). */
	readonly keepLatestK: number | null;
	/** checkpoint.folder, relative to the dump folder. */
	readonly folder: string;
	/** How the setting is spelled in that file: "[checkpoint] keep_latest_k" or "checkpoint.keep_latest_k". */
	readonly setting: string;
}

function tomlValue(raw: string): string {
	const value = raw.replace(/\s+#.*$/, '').trim();
	const quoted = /^(["'])(.*)\1$/.exec(value);
	return quoted ? (quoted[2] ?? '') : value;
}

function wholeNumber(text: string | undefined): number | null {
	if (text === undefined || !/^\d+$/.test(text)) return null;
	const value = Number(text);
	return Number.isSafeInteger(value) ? value : null;
}

/** The [checkpoint] table's keys of a TOML text, or null when it has none. */
function parseToml(text: string): Map<string, string> | null {
	let table: string | null = null;
	let seen = false;
	const keys = new Map<string, string>();
	for (const line of text.split(/\r?\n/)) {
		const header = /^\s*\[([^\]]+)\]\s*(?:#.*)?$/.exec(line);
		if (header) {
			table = header[1]?.trim() ?? null;
			if (table === 'checkpoint') seen = true;
			continue;
		}
		const pair = /^\s*([A-Za-z0-9_.]+)\s*=\s*(.+)$/.exec(line);
		if (!pair?.[1] || pair[2] === undefined) continue;
		const key = table === 'checkpoint' ? pair[1] : table === null ? /^checkpoint\.(.+)$/.exec(pair[1])?.[1] : undefined;
		if (key === undefined) continue;
		seen = true;
		keys.set(key, tomlValue(pair[2]));
	}
	return seen ? keys : null;
}

function fromToml(file: string, text: string): TitanConfig | null {
	const keys = parseToml(text);
	if (keys === null) return null;
	return {
		file,
		keepLatestK: wholeNumber(keys.get('keep_latest_k')),
		folder: keys.get('folder') ?? DEFAULT_FOLDER,
		setting: '[checkpoint] keep_latest_k',
	};
}

function fromJson(file: string, text: string): TitanConfig | null {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return null;
	}
	const section = isRecord(value) ? value.checkpoint : undefined;
	// JobConfig.to_dict writes every field: a "checkpoint" object without torchtitan's keys is someone else's.
	if (!isRecord(section) || !('keep_latest_k' in section || 'interval' in section)) return null;
	const keep = section.keep_latest_k;
	return {
		file,
		keepLatestK: typeof keep === 'number' && Number.isSafeInteger(keep) && keep >= 0 ? keep : null,
		folder: typeof section.folder === 'string' ? section.folder : DEFAULT_FOLDER,
		setting: 'checkpoint.keep_latest_k',
	};
}

/** The folder as a single name relative to the dump folder ("./checkpoint/" → "checkpoint"). */
function folderName(folder: string): string {
	const name = path.posix.normalize(folder.replace(/\\/g, '/')).replace(/^\.\/|\/+$/g, '');
	return name === '' ? '.' : name;
}

/** The first config file among `entries` (the dump folder's) that has torchtitan's checkpoint settings, or null. */
async function findTitanConfig(
	dumpFolder: string,
	entries: readonly Entry[],
	io: LayoutIO,
): Promise<TitanConfig | null> {
	const files = entries
		.filter(e => e.type === 'file' && e.size <= MAX_CONFIG_BYTES && /\.(toml|json)$/.test(e.name))
		// A .toml first: a train config is what the run was started with.
		.sort((a, b) => Number(b.name.endsWith('.toml')) - Number(a.name.endsWith('.toml')))
		.slice(0, MAX_CANDIDATES);
	for (const file of files) {
		const text = await io.readText(path.join(dumpFolder, file.name), MAX_CONFIG_BYTES);
		if (text === null) continue;
		const config = file.name.endsWith('.toml') ? fromToml(file.name, text) : fromJson(file.name, text);
		if (config !== null) return config;
	}
	return null;
}

/** _purge_stale_checkpoints and _find_load_step match re.search(r"step-(\d+)", name): anywhere in the name. */
const STEP = /step-(\d+)/;
const DCP_METADATA = '.metadata';
const DCP_METADATA_TMP = '.metadata.tmp';
const HF_INDEX = 'model.safetensors.index.json';
/** dcp_save's staging directory for a sharded Hugging Face save, consolidated into the step directory after. */
const HF_STAGING = 'sharded';
const SHARD = /\.distcp$/;

function judge(inner: readonly Entry[]): Pick<Found, 'status' | 'kind' | 'warnings'> {
	const names = new Set(inner.map(e => e.name));
	// Only _save_last_step writes the Hugging Face form (last_save_in_hf).
	const kind = names.has(HF_INDEX) || names.has(HF_STAGING) ? 'last' : 'periodic';
	if (names.has(DCP_METADATA) || names.has(HF_INDEX)) return {status: 'complete', kind, warnings: []};
	let why = `neither ${DCP_METADATA} nor ${HF_INDEX}: the save did not finish`;
	if (names.has(DCP_METADATA_TMP)) why = `${DCP_METADATA_TMP} without ${DCP_METADATA}: DCP did not finish the save`;
	else if (names.has(HF_STAGING))
		why = `${HF_STAGING}/ without ${HF_INDEX}: the Hugging Face consolidation did not finish`;
	else if (inner.some(e => SHARD.test(e.name))) why = `shards without ${DCP_METADATA}: still being written or cut off`;
	else if (inner.length === 0) why = 'empty: the save has not written anything yet';
	return {status: 'partial', kind, warnings: [why]};
}

/** keep_latest_k: a config's 0 is declared as keep-all (rules.ts says so in the rule line). */
const retention: RetentionRule = keepNewest({
	framework: 'torchtitan',
	setting: 'keep_latest_k',
	// The purge sorts every step-<N> name by N, finished or not, the final save included.
	protects: () => false,
	counts: () => true,
});

/** step-<N> exactly, as _create_checkpoint_id names them: what a checkpoint/ folder without a config must hold. */
const STEP_DIR = /^step-\d+$/;

/** Steps in torchtitan's default folder, claimed without a config: keep_latest_k is then --keep's. */
function byLocation(dir: ScanDir, steps: readonly Entry[]): boolean {
	return dir.rel !== '' && path.basename(dir.path) === DEFAULT_FOLDER && steps.every(e => STEP_DIR.test(e.name));
}

export const torchtitanLayout: Layout = {
	name: 'torchtitan',
	title: 'torchtitan',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const steps = dir.entries.filter(e => e.type === 'dir' && STEP.test(e.name));
		if (steps.length === 0) return NOTHING;
		// The dump folder holds the config; the checkpoint folder is {dump_folder}/{checkpoint.folder}.
		const dump = dir.rel === '' ? dir.path : path.dirname(dir.path);
		const dumpEntries = dir.rel === '' ? dir.entries : ((await io.list(dump)) ?? []);
		const config = await findTitanConfig(dump, dumpEntries, io);
		// The folder as named from the dump folder (the checkpoint dir's parent, wherever the search found it).
		const configured =
			config !== null && folderName(config.folder) === (dir.rel === '' ? '.' : path.basename(dir.path));
		if (!configured && !(config === null && byLocation(dir, steps))) return NOTHING;
		const result: Found[] = [];
		for (const entry of steps) {
			const inner = (await io.list(entry.path)) ?? [];
			result.push(found(entry, {step: intOf(STEP.exec(entry.name)?.[1]), ...judge(inner)}));
		}
		if (!configured) return {found: result, warnings: [], declared: null};
		const unset = config.keepLatestK === null;
		const from = `${config.file} ${config.setting}${unset ? ` (not set: default ${DEFAULT_KEEP_LATEST_K})` : ''}`;
		const keep = config.keepLatestK === 0 ? 'all' : (config.keepLatestK ?? DEFAULT_KEEP_LATEST_K);
		return {found: result, warnings: [], declared: {keep, from, monitor: null}};
	},
	retention,
};
