// Keras ModelCheckpoint: one file per save, named by the user's `filepath` template filled in with str.format
// (epoch is 1-based, batch too, plus every logged metric): `model.{epoch:02d}-{val_loss:.2f}.keras` gives
// `model.05-0.32.keras`. A full model is a `.keras` zip (metadata.json, config.json, model.weights.h5) written
// straight into the final path by zipfile, so it is partial when its zip end record is missing; `.weights.h5`
// (save_weights_only) and a legacy `.h5` / `.hdf5` model are HDF5 files written in place by h5py, partial when their
// superblock says so (hdf5-end.ts: write-access flag still set, or shorter than its end-of-file address). Nothing
// is written to a temporary name and no marker file exists. A template without placeholders is one file overwritten
// by every save (with save_best_only: every improvement). Keras never deletes a checkpoint.
// Source: keras-team/keras keras/src/callbacks/model_checkpoint.py: ModelCheckpoint._save_model, _get_file_path,
// _should_save_model; keras/src/saving/saving_lib.py: save_model, _save_model_to_fileobj, save_weights_only.

import type {CheckpointMetric} from '../../core/types.js';
import {guessMode, keepAll} from '../rules.js';
import {judgeHdf5} from './hdf5-end.js';
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

const KERAS = /\.keras$/i;
const WEIGHTS = /\.weights\.h5$/i;
const LEGACY = /\.(?:h5|hdf5)$/i;
const EPOCH = /(?:^|[^a-z])(?:epoch|ep)[-_=]?(\d+)(?![\d.])/i;
const BATCH = /(?:^|[^a-z])(?:batch|step|ba)[-_=]?(\d+)(?![\d.])/i;
/** `val_loss=0.32`, `acc0.91`, `loss-1.20`: a metric-like word before a decimal number. */
const NAMED_METRIC = /(?<![a-z])([a-z][a-z_]*?)[-_=]?(\d+\.\d+(?:e[-+]?\d+)?)(?![\d.])/gi;
/** `05-0.32` (the documented `{epoch:02d}-{val_loss:.2f}`): an integer, then a decimal whose name is not written. */
const BARE = /(?:^|[^a-z0-9])(\d+)[-_](\d+\.\d+(?:e[-+]?\d+)?)$/i;
/** `model.05` (`model.{epoch:02d}.keras`): a lone integer at the end is the epoch (not the decimals of `0.32`). */
const LONE = /(?:^|(?<!\d)[._-])(\d+)$/;
/** The name of a score the template writes without its name. */
const UNNAMED_METRIC = '(unnamed)';

function stemOf(name: string): string | null {
	if (KERAS.test(name)) return name.replace(KERAS, '');
	if (WEIGHTS.test(name)) return name.replace(WEIGHTS, '');
	if (LEGACY.test(name)) return name.replace(LEGACY, '');
	return null;
}

function namedMetric(stem: string): CheckpointMetric | null {
	for (const match of stem.matchAll(NAMED_METRIC)) {
		const word = match[1]!.replace(/[-_]+$/, '');
		const value = Number(match[2]);
		if (guessMode(word).mode !== null && Number.isFinite(value)) return {name: word, value};
	}
	return null;
}

interface KerasName {
	readonly epoch: number | null;
	readonly step: number | null;
	readonly metric: CheckpointMetric | null;
	readonly kind: Found['kind'];
}

/** What the filled-in template tells: epoch, batch, a monitored score, and whether it is a best or last copy. */
export function parseKerasName(stem: string): KerasName {
	const bare = BARE.exec(stem);
	const step = intOf(BATCH.exec(stem)?.[1]);
	let epoch = intOf(EPOCH.exec(stem)?.[1]) ?? intOf(bare?.[1]);
	if (epoch === null && step === null) epoch = intOf(LONE.exec(stem)?.[1]);
	const value = Number(bare?.[2]);
	const metric = namedMetric(stem) ?? (bare && Number.isFinite(value) ? {name: UNNAMED_METRIC, value} : null);
	let kind: Found['kind'] = epoch !== null || step !== null ? 'periodic' : 'unknown';
	if (/best/i.test(stem)) kind = 'best';
	else if (/(?:^|[^a-z])(?:last|latest|final)(?:[^a-z]|$)/i.test(stem)) kind = 'last';
	return {epoch, step, metric, kind};
}

async function judge(entry: Entry, io: LayoutIO): Promise<{status: Found['status']; warnings: string[]}> {
	if (!KERAS.test(entry.name)) return judgeHdf5(entry, io);
	if (entry.type === 'missing')
		return {status: 'partial', warnings: [`dangling symlink to ${entry.linkTarget ?? '?'}`]};
	if (entry.size === 0) return {status: 'partial', warnings: ['empty file: the save did not get to write it']};
	return (await hasZipEnd(io, entry.path))
		? {status: 'complete', warnings: []}
		: {status: 'partial', warnings: [TRUNCATED]};
}

export const kerasLayout: Layout = {
	name: 'keras',
	title: 'Keras',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const result: Found[] = [];
		for (const entry of dir.entries) {
			if (entry.type === 'dir' || entry.type === 'other') continue;
			const stem = stemOf(entry.name);
			if (stem === null) continue;
			const parsed = parseKerasName(stem);
			// A bare `.h5` is any HDF5 file (a dataset, features): only one whose name carries an epoch, a batch or a
			// score, or says best / last, is taken for a legacy Keras model.
			if (!KERAS.test(entry.name) && !WEIGHTS.test(entry.name) && parsed.kind === 'unknown' && !parsed.metric) continue;
			const {status, warnings} = await judge(entry, io);
			const {epoch, step, metric, kind} = parsed;
			result.push(found(entry, {epoch, step, metric, kind, status, warnings}));
		}
		return result.length === 0 ? NOTHING : {found: result, warnings: [], declared: null};
	},
	// ModelCheckpoint only writes: a name per epoch adds a file, a fixed name overwrites the one file.
	retention: keepAll('Keras never deletes'),
};
