// The ModelCheckpoint state of a Lightning checkpoint directory, read from its newest complete `.ckpt`: the pickle
// is read as data (torch-file/, never unpickled) and each callback state whose key is a ModelCheckpoint's is turned
// into numbers and paths for lightning-callback-state.ts. A read costs the zip's central directory and its object
// pickle (a few MiB for a large model's optimizer state), so a checkpoint already read is not read again while its
// size and mtime stay the same.
// Source: Lightning-AI/pytorch-lightning 2.6.6 src/lightning/pytorch/trainer/connectors/checkpoint_connector.py:
// dump_checkpoint (epoch, global_step, callbacks: {state_key: state_dict()}).

import {dictEntries, dictGet, isNone, pyInt, pyNumber, pyStr, type PyValue} from '../torch-file/py-value.js';
import {isTensor, tensorScalar} from '../torch-file/tensor.js';
import {readTorchFile, type TorchFile} from '../torch-file/torch-file.js';
import {
	declareFromCheckpoint,
	type CallbackDeclaration,
	type CheckpointCallbackState,
	type LightningCheckpointRead,
} from './lightning-callback-state.js';
import {FileMemo} from './file-memo.js';
import {relName, type Entry, type Found, type LayoutIO, type ScanDir} from './layout.js';

/** Checkpoints read, newest first: a cut-off or foreign one is passed over, and files copied together tie on mtime. */
const MAX_READS = 3;
/** Reads remembered (path, size, mtime): a scan repeats every few seconds while a job writes. */
const remembered = new FileMemo<LightningCheckpointRead | {readonly problem: string}>(64);

async function scoreOf(file: TorchFile, node: PyValue | undefined): Promise<number | null> {
	if (node === undefined || isNone(node)) return null;
	if (!isTensor(node)) return pyNumber(node);
	const read = await tensorScalar(file, node);
	return read.status === 'ok' ? read.value : null;
}

function pathOf(node: PyValue | undefined): string | null {
	return node === undefined || isNone(node) ? null : pyStr(node);
}

async function callbackState(file: TorchFile, state: PyValue): Promise<CheckpointCallbackState | null> {
	const bestK = dictGet(state, 'best_k_models');
	if (bestK === undefined || dictGet(state, 'dirpath') === undefined) return null;
	const bestKModels: {path: string; score: number | null}[] = [];
	for (const [key, value] of dictEntries(bestK)) {
		const path = pyStr(key);
		if (path !== null) bestKModels.push({path, score: await scoreOf(file, value)});
	}
	return {
		dirpath: pathOf(dictGet(state, 'dirpath')),
		bestModelPath: pathOf(dictGet(state, 'best_model_path')),
		kthBestModelPath: pathOf(dictGet(state, 'kth_best_model_path')),
		lastModelPath: pathOf(dictGet(state, 'last_model_path')),
		bestKModels,
		bestModelScore: await scoreOf(file, dictGet(state, 'best_model_score')),
		kthValue: await scoreOf(file, dictGet(state, 'kth_value')),
		currentScore: await scoreOf(file, dictGet(state, 'current_score')),
	};
}

/** The step, epoch and ModelCheckpoint-shaped callback states of one `.ckpt`, or why it cannot be read. */
function readLightningCheckpoint(
	io: LayoutIO,
	entry: Entry,
): Promise<LightningCheckpointRead | {readonly problem: string}> {
	return remembered.get(entry, async () => {
		const file = await readTorchFile(io, entry.path);
		if (file.status !== 'ok') return {problem: file.why};
		const callbacks: [string, CheckpointCallbackState][] = [];
		for (const [key, value] of dictEntries(dictGet(file.root, 'callbacks'))) {
			const name = pyStr(key);
			const state = name === null ? null : await callbackState(file, value);
			if (name !== null && state !== null) callbacks.push([name, state]);
		}
		return {
			version: pyStr(dictGet(file.root, 'pytorch-lightning_version')),
			globalStep: pyInt(dictGet(file.root, 'global_step')),
			epoch: pyInt(dictGet(file.root, 'epoch')),
			callbacks,
		};
	});
}

/** A checkpoint of the directory, with its kind and whether it is whole (lightning.ts judged it). */
export interface Judged {
	readonly entry: Entry;
	readonly kind: Found['kind'];
	readonly step: number | null;
	readonly status: Found['status'];
}

export interface CallbackStateRead {
	readonly declaration: CallbackDeclaration | null;
	/** The global_step and epoch of each checkpoint read, by name: what an hpc_ckpt_N or last.ckpt name leaves out. */
	readonly progress: ReadonlyMap<string, {readonly step: number | null; readonly epoch: number | null}>;
	readonly warnings: string[];
}

/** Newest first: by mtime, then step, then name. */
function newestFirst(a: Judged, b: Judged): number {
	const byTime = b.entry.mtimeMs - a.entry.mtimeMs;
	if (byTime !== 0) return byTime;
	const byStep = (b.step ?? -1) - (a.step ?? -1);
	return byStep !== 0 ? byStep : a.entry.name < b.entry.name ? 1 : -1;
}

/**
 * What the newest complete `.ckpt` file of the directory declares about the ModelCheckpoint saving here: of the
 * newest MAX_READS by mtime, the one furthest in training (global_step), as files copied together share an mtime.
 * Links (last.ckpt with save_last='link') are their targets, read as themselves; DeepSpeed and sharded `.ckpt`
 * directories are not read. A warning (one) only when none could be read. Never throws.
 */
export async function readCallbackState(
	dir: ScanDir,
	judged: readonly Judged[],
	io: LayoutIO,
): Promise<CallbackStateRead> {
	const readable = judged
		.filter(one => one.status === 'complete' && one.entry.type === 'file' && !one.entry.symlink)
		.sort(newestFirst)
		.slice(0, MAX_READS);
	const periodicNames = judged.filter(one => one.kind === 'periodic').map(one => one.entry.name);
	const problems: string[] = [];
	const progress = new Map<string, {step: number | null; epoch: number | null}>();
	let chosen: {step: number; declaration: CallbackDeclaration} | null = null;
	for (const one of readable) {
		const file = relName(dir, one.entry.name);
		const read = await readLightningCheckpoint(io, one.entry);
		if ('problem' in read) {
			problems.push(`${file}: ModelCheckpoint state not read (${read.problem})`);
			continue;
		}
		progress.set(one.entry.name, {step: read.globalStep, epoch: read.epoch});
		const declaration = declareFromCheckpoint(read, {file, dirPath: dir.path, dirRel: dir.rel, periodicNames});
		if (declaration === null) continue;
		if ('problem' in declaration) return {declaration: null, progress, warnings: [declaration.problem]};
		const step = read.globalStep ?? -1;
		if (chosen === null || step > chosen.step) chosen = {step, declaration};
	}
	if (chosen === null) {
		// One line: the newest file's reason, the others counted (they are alike: a job writes them all one way).
		const [first] = problems;
		const more = problems.length > 1 ? `; ${problems.length - 1} older .ckpt not read either` : '';
		return {declaration: null, progress, warnings: first === undefined ? [] : [`${first}${more}`]};
	}
	return {declaration: chosen.declaration, progress, warnings: []};
}
