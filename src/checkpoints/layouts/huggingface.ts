// Hugging Face Trainer: <output_dir>/checkpoint-<global_step>/. _save_checkpoint writes the model (save_model: weights,
// config, training_args.bin; with DeepSpeed also global_step<N>/ + latest inside), then optimizer, scheduler, scaler
// and rng state, then trainer_state.json LAST, then rotates. So partial means: no trainer_state.json, or one that does
// not parse (save_to_json writes it in place, cut short mid-write); checkpoint-is-incomplete.txt, which the JIT
// (SIGTERM) checkpoint writes before its _save_checkpoint and removes after it; tmp-checkpoint-<N>/, the staging dir
// some releases wrote into and renamed at the end. best_model_checkpoint in the newest trainer_state.json names the
// best one. save_total_limit and the other settings the run declares come from training_args.bin (a pickled
// TrainingArguments, read as data) and the newest trainer_state.json: huggingface-declared.ts.
// Source: huggingface/transformers src/transformers/trainer.py: Trainer._save_checkpoint, save_model, _save,
// _sorted_checkpoints, _rotate_checkpoints; src/transformers/trainer_jit_checkpoint.py:
// CheckpointManager.execute_jit_checkpoint; trainer_callback.py: TrainerState.save_to_json.

import path from 'node:path';
import {jsonProblem} from '../json-problem.js';
import type {ScannedCheckpoint} from '../../core/types.js';
import type {RetentionRule} from '../rules.js';
import {
	found,
	intOf,
	isRecord,
	NOTHING,
	numberOf,
	relName,
	type Entry,
	type Found,
	type Layout,
	type LayoutIO,
	type LayoutResult,
	type ScanDir,
} from './layout.js';
import {hfDeclared} from './huggingface-declared.js';

const CHECKPOINT = /^checkpoint-(\d+)$/;
const STAGING = /^tmp-checkpoint-(\d+)$/;
const STATE_FILE = 'trainer_state.json';
const SENTINEL = 'checkpoint-is-incomplete.txt';
const ARGS_FILE = 'training_args.bin';
/** A state up to this size is parsed whole; a larger one (a long log_history) is read at its head and tail only. */
const WHOLE_STATE_BYTES = 256 * 1024;
const STATE_WINDOW = 64 * 1024;

interface TrainerState {
	readonly epoch: number | null;
	readonly globalStep: number | null;
	readonly loss: number | null;
	readonly best: string | null;
	/** save_steps as the Trainer resolved it (TrainerState.save_steps). */
	readonly saveSteps: number | null;
	/** Entries in log_history; null when only the file's ends were read. */
	readonly logEntries: number | null;
}

/** What trainer_state.json says, whether its write was cut short, or what else is wrong with it. */
interface StateRead {
	readonly state: TrainerState | null;
	readonly cut: string | null;
	readonly problem: string | null;
}

function parseState(value: unknown): TrainerState | string {
	if (!isRecord(value)) return 'expected a JSON object';
	let loss: number | null = null;
	if (Array.isArray(value.log_history)) {
		for (const record of value.log_history) if (isRecord(record)) loss = numberOf(record.loss) ?? loss;
	}
	const best = typeof value.best_model_checkpoint === 'string' ? value.best_model_checkpoint : null;
	return {
		epoch: numberOf(value.epoch),
		globalStep: numberOf(value.global_step),
		loss,
		best,
		saveSteps: numberOf(value.save_steps),
		logEntries: Array.isArray(value.log_history) ? value.log_history.length : null,
	};
}

const NUMBER = '(-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?)';

/**
 * A large state from its head and tail: save_to_json sorts the keys, so epoch, global_step and best_model_checkpoint
 * come before log_history, whose last entries (and the last "loss") are in the tail, with save_steps after them.
 */
function stateFromEnds(head: string, tail: string): TrainerState {
	const epoch = new RegExp(`"epoch":\\s*${NUMBER}`).exec(head)?.[1];
	const step = /"global_step":\s*(\d+)/.exec(head)?.[1];
	const bestLiteral = /"best_model_checkpoint":\s*("(?:[^"\\]|\\.)*")/.exec(head)?.[1];
	let best: string | null = null;
	try {
		best = bestLiteral === undefined ? null : (JSON.parse(bestLiteral) as string);
	} catch {
		best = null;
	}
	const losses = [...tail.matchAll(new RegExp(`"loss":\\s*${NUMBER}`, 'g'))];
	const loss = losses.at(-1)?.[1];
	// The last "save_steps" of the tail: log_history's records never hold that key.
	const saveSteps = [...tail.matchAll(/"save_steps":\s*(\d+)/g)].at(-1)?.[1];
	return {
		epoch: epoch === undefined ? null : Number(epoch),
		globalStep: intOf(step),
		loss: loss === undefined ? null : Number(loss),
		best,
		saveSteps: intOf(saveSteps),
		logEntries: null,
	};
}

async function readState(file: string, size: number, io: LayoutIO): Promise<StateRead> {
	if (size <= WHOLE_STATE_BYTES) {
		const text = await io.readText(file, WHOLE_STATE_BYTES);
		if (text === null) return {state: null, cut: null, problem: 'cannot be read'};
		let value: unknown;
		try {
			value = JSON.parse(text);
		} catch (caught) {
			const why = `does not parse as JSON (${jsonProblem(caught)}): its write was cut short`;
			return {state: null, cut: why, problem: null};
		}
		const parsed = parseState(value);
		return typeof parsed === 'string'
			? {state: null, cut: null, problem: parsed}
			: {state: parsed, cut: null, problem: null};
	}
	const head = await io.readText(file, STATE_WINDOW);
	const tail = (await io.readRange(file, STATE_WINDOW, 'tail'))?.toString('utf8') ?? null;
	if (head === null || tail === null) return {state: null, cut: null, problem: 'cannot be read'};
	if (!tail.trimEnd().endsWith('}')) return {state: null, cut: 'ends mid-JSON: its write was cut short', problem: null};
	return {state: stateFromEnds(head, tail), cut: null, problem: null};
}

interface Candidate {
	readonly found: Found;
	readonly state: TrainerState | null;
	/** The checkpoint's own training_args.bin, when it has one. */
	readonly args: string | null;
}

async function checkpoint(entry: Entry, step: number | null, io: LayoutIO): Promise<Candidate> {
	// Names only, then an lstat of the two files read: not one per shard (issue 17, run dirs of 100k files).
	const inner = new Set((await io.names(entry.path)) ?? []);
	const warnings: string[] = [];
	let status: Found['status'] = 'complete';
	let state: TrainerState | null = null;
	const stateEntry = inner.has(STATE_FILE) ? await io.entry(path.join(entry.path, STATE_FILE)) : null;
	if (stateEntry === null) {
		status = 'partial';
		warnings.push(`no ${STATE_FILE} (written last): the save did not finish`);
	} else if (stateEntry.type !== 'file') {
		// A FIFO (or a dangling link) is not what save_to_json writes: not a finished save. The read is refused unopened
		// (system/safe-read.ts), and the refusal puts what the file is into the scan's warnings.
		status = 'partial';
		warnings.push(`${STATE_FILE} is not a regular file (never opened): not a finished save`);
		await io.readText(stateEntry.path, 1);
	} else {
		const read = await readState(stateEntry.path, stateEntry.size, io);
		if (read.cut !== null) {
			status = 'partial';
			warnings.push(`${STATE_FILE} ${read.cut}`);
		}
		if (read.problem !== null) warnings.push(`${STATE_FILE}: ${read.problem}`);
		state = read.state;
		if (state?.globalStep != null && state.globalStep !== step) {
			warnings.push(`${STATE_FILE}: global_step ${state.globalStep} differs from the name's ${step}`);
		}
	}
	let kind: Found['kind'] = 'periodic';
	if (inner.has(SENTINEL)) {
		status = 'partial';
		kind = 'emergency';
		warnings.push(`${SENTINEL} present: a just-in-time (SIGTERM) save is in progress or was cut off`);
	}
	const argsFile = path.join(entry.path, ARGS_FILE);
	const args = inner.has(ARGS_FILE) && (await io.entry(argsFile))?.type === 'file' ? argsFile : null;
	const fields = {step, epoch: state?.epoch ?? null, loss: state?.loss ?? null, status, kind, warnings};
	return {found: found(entry, fields), state, args};
}

/**
 * What the run declares (huggingface-declared.ts): training_args.bin, the output dir's (written when the job saves its final
 * model), else the newest checkpoint's; and the newest trainer_state.json. null: nothing to read.
 */
async function declared(dir: ScanDir, candidates: readonly Candidate[], io: LayoutIO, warnings: string[]) {
	const own = dir.entries.find(entry => entry.name === ARGS_FILE && entry.type === 'file');
	const byStep = [...candidates].sort((a, b) => (a.found.step ?? -1) - (b.found.step ?? -1));
	const newestArgs = byStep.filter(candidate => candidate.args !== null).at(-1);
	const argsPath = own?.path ?? newestArgs?.args ?? null;
	const argsRel = own !== undefined ? ARGS_FILE : `${newestArgs?.found.entry.name}/${ARGS_FILE}`;
	const argsFile = argsPath === null ? null : {path: argsPath, from: relName(dir, argsRel)};
	const newestState = byStep.filter(candidate => candidate.state !== null).at(-1);
	const state = newestState?.state ?? null;
	const stateFacts =
		state === null || newestState === undefined
			? null
			: {
					from: relName(dir, `${newestState.found.entry.name}/${STATE_FILE}`),
					globalStep: state.globalStep,
					saveSteps: state.saveSteps,
					best: state.best,
					logEntries: state.logEntries,
				};
	return hfDeclared(io, argsFile, stateFacts, warnings);
}

function byPath(a: ScannedCheckpoint, b: ScannedCheckpoint): number {
	return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * _sorted_checkpoints(use_mtime=False), as _save_checkpoint calls it since transformers stopped trusting mtimes ("not
 * reliable especially on some fuse fs"): by the number in the name. (Versions before that passed use_mtime=True.)
 */
function hfOrder(list: readonly ScannedCheckpoint[]): ScannedCheckpoint[] {
	return [...list].sort((a, b) => (a.step ?? 0) - (b.step ?? 0) || byPath(a, b));
}

/**
 * _rotate_checkpoints after the next save: it globs every checkpoint-* dir (partial ones too, not tmp-checkpoint-*),
 * moves the best next to the end so it is not deleted while it still counts toward the limit, and deletes the oldest
 * of the rest down to save_total_limit (2 when the limit is 1 and a best exists, so the newest survives for resuming).
 */
const hfRetention: RetentionRule = ({checkpoints, keep, keepsAll}) => {
	const rotated = hfOrder(checkpoints.filter(c => CHECKPOINT.test(c.name)));
	const best = rotated.filter(c => c.kind === 'best');
	const head = 'HF save_total_limit';
	if (keepsAll) {
		return {rule: `${head} None: never deletes`, counted: rotated, toPrune: [], protected: best, keep: null};
	}
	if (keep === null)
		return {rule: `${head} unknown: keeps all (--keep N)`, counted: rotated, toPrune: [], protected: best};
	const limit = keep === 1 && best.length > 0 ? 2 : keep;
	const others = rotated.filter(c => c.kind !== 'best');
	const toPrune = others.slice(0, Math.max(0, rotated.length + 1 - limit));
	const note = best.length === 0 ? '' : keep === 1 ? ', best protected (keeps 2: best and newest)' : ', best protected';
	return {rule: `${head} ${keep}${note}`, counted: rotated, toPrune, protected: best};
};

export const huggingfaceLayout: Layout = {
	name: 'huggingface',
	title: 'Hugging Face Trainer',
	async find(dir: ScanDir, io: LayoutIO): Promise<LayoutResult> {
		const candidates: Candidate[] = [];
		for (const entry of dir.entries) {
			if (entry.type !== 'dir') continue;
			const match = CHECKPOINT.exec(entry.name);
			if (match) {
				candidates.push(await checkpoint(entry, intOf(match[1]), io));
				continue;
			}
			const staging = STAGING.exec(entry.name);
			if (staging) {
				const warnings = ['staging directory (tmp-checkpoint-*): never renamed, so the save did not finish'];
				const fields = {step: intOf(staging[1]), status: 'partial' as const, kind: 'periodic' as const, warnings};
				candidates.push({found: found(entry, fields), state: null, args: null});
			}
		}
		if (candidates.length === 0) return NOTHING;
		// The newest trainer_state.json names the best checkpoint (a path as the job saw it: compare the last part).
		const newest = candidates
			.filter(candidate => candidate.state !== null)
			.sort((a, b) => (a.found.step ?? -1) - (b.found.step ?? -1))
			.at(-1);
		const best = newest?.state?.best ? path.basename(newest.state.best.replace(/[\\/]+$/, '')) : null;
		const result = candidates.map(({found: item}) =>
			item.entry.name === best && CHECKPOINT.test(item.entry.name) ? {...item, kind: 'best' as const} : item,
		);
		const warnings: string[] = [];
		return {found: result, warnings, declared: await declared(dir, candidates, io, warnings)};
	},
	retention: hfRetention,
};
