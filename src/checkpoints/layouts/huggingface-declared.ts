// What a Hugging Face Trainer run declares about its saving, read from its own files and kept with where each came
// from: training_args.bin (the pickled TrainingArguments, read as data by checkpoints/torch-file: never unpickled)
// gives save_total_limit, save_strategy, save_steps, load_best_model_at_end, metric_for_best_model and
// greater_is_better; the newest trainer_state.json (TrainerState.save_to_json) gives global_step, save_steps as the
// Trainer resolved it (a ratio below 1 becomes steps there), best_model_checkpoint and log_history. A setting that is
// missing or unreadable stays unknown: no default is filled in.
// Source: huggingface/transformers src/transformers/training_args.py (TrainingArguments fields, __post_init__:
// greater_is_better from the metric's name), trainer_utils.py (SaveStrategy: no, steps, epoch, best),
// trainer_callback.py (TrainerState), trainer.py (_inner_training_loop: save_steps ratio, _rotate_checkpoints).

import type {DeclaredCadence, DeclaredFact, DeclaredRetention, MonitorSetting} from '../../core/types.js';
import {readTorchFile} from '../torch-file/torch-file.js';
import {attr, enumValue, isNone, pyBool, pyInt, pyNumber, pyRepr, pyStr, type PyValue} from '../torch-file/py-value.js';
import type {LayoutIO} from './layout.js';

/** What the newest trainer_state.json says about saving; null fields: not in the file. */
export interface HfStateFacts {
	/** The file, relative to the run dir: "checkpoint-50/trainer_state.json". */
	readonly from: string;
	readonly globalStep: number | null;
	readonly saveSteps: number | null;
	/** As written: the path the job saw. */
	readonly best: string | null;
	/** Entries in log_history; null when the file was read at its ends only (too large to parse whole). */
	readonly logEntries: number | null;
}

/** training_args.bin, when there is one to read: the file and its name relative to the run dir. */
export interface HfArgsFile {
	readonly path: string;
	readonly from: string;
}

interface ArgsFacts {
	readonly limit: PyValue | undefined;
	readonly strategy: string | null;
	readonly saveSteps: number | null;
	readonly metric: string | null;
	readonly greater: boolean | null;
	readonly facts: DeclaredFact[];
}

/** The enum's value (SaveStrategy('steps')), or a plain str as older pickles hold it. */
function strategyOf(node: PyValue | undefined): string | null {
	return pyStr(enumValue(node)) ?? pyStr(node);
}

async function readArgs(io: LayoutIO, file: HfArgsFile, warnings: string[]): Promise<ArgsFacts | null> {
	const read = await readTorchFile(io, file.path);
	if (read.status !== 'ok') {
		warnings.push(`${file.from}: save_total_limit not read (${read.why}): --keep applies`);
		return null;
	}
	const facts: DeclaredFact[] = [];
	const fact = (key: string, value: string) => facts.push({key, value, from: file.from});
	const get = (key: string) => attr(read.root, key);
	const limit = get('save_total_limit');
	if (limit === undefined) warnings.push(`${file.from}: no save_total_limit in its pickle: --keep applies`);
	else if (pyInt(limit) === null && !isNone(limit)) {
		warnings.push(`${file.from}: save_total_limit is ${pyRepr(limit)}, not an int or None: --keep applies`);
	} else fact('save_total_limit', pyRepr(limit));
	const strategy = strategyOf(get('save_strategy'));
	if (strategy !== null) fact('save_strategy', `'${strategy}'`);
	const saveSteps = pyNumber(get('save_steps'));
	if (saveSteps !== null && strategy === 'steps') fact('save_steps', pyRepr(get('save_steps')));
	const loadBest = pyBool(get('load_best_model_at_end'));
	if (loadBest !== null) fact('load_best_model_at_end', loadBest ? 'True' : 'False');
	const metric = pyStr(get('metric_for_best_model'));
	const greater = pyBool(get('greater_is_better'));
	if (metric !== null) {
		fact('metric_for_best_model', `'${metric}'`);
		if (greater !== null) fact('greater_is_better', greater ? 'True' : 'False');
	}
	const known = limit !== undefined && (pyInt(limit) !== null || isNone(limit));
	return {limit: known ? limit : undefined, strategy, saveSteps, metric, greater, facts};
}

function stateFacts(state: HfStateFacts, strategy: string | null): DeclaredFact[] {
	const facts: DeclaredFact[] = [];
	const fact = (key: string, value: string) => facts.push({key, value, from: state.from});
	if (state.best !== null) fact('best_model_checkpoint', `'${state.best}'`);
	if (state.globalStep !== null) fact('global_step', String(state.globalStep));
	// TrainerState.save_steps holds the default 500 whatever the strategy: a fact only when saving is by steps.
	if (state.saveSteps !== null && strategy === 'steps') fact('save_steps', String(state.saveSteps));
	if (state.logEntries !== null) fact('log_history', `${state.logEntries} entries`);
	return facts;
}

/** How often it saves: every save_steps steps (as the Trainer resolved it), or every epoch; null: not periodic or not said. */
function cadenceOf(args: ArgsFacts | null, argsFrom: string, state: HfStateFacts | null): DeclaredCadence | null {
	const none = {everySteps: null, everyEpochs: null, everySeconds: null};
	if (args?.strategy === 'epoch') return {...none, everyEpochs: 1, from: `${argsFrom} save_strategy`};
	if (args?.strategy !== 'steps') return null;
	if (state?.saveSteps != null && state.saveSteps >= 1) {
		return {...none, everySteps: state.saveSteps, from: `${state.from} save_steps`};
	}
	// A save_steps below 1 is a ratio of the run's total steps, resolved only in trainer_state.json.
	const steps = args.saveSteps;
	if (steps !== null && steps >= 1 && Number.isInteger(steps)) {
		return {...none, everySteps: steps, from: `${argsFrom} save_steps`};
	}
	return null;
}

function monitorOf(args: ArgsFacts | null, argsFrom: string): MonitorSetting | null {
	if (args?.metric == null) return null;
	const mode = args.greater === null ? null : args.greater ? 'max' : 'min';
	return {name: args.metric, mode, modeFrom: mode === null ? null : `${argsFrom} greater_is_better`};
}

/**
 * The run's declared retention, cadence and monitor with every fact's file; null when there is neither a
 * training_args.bin nor a trainer_state.json to read. keep is null when save_total_limit was not read.
 */
export async function hfDeclared(
	io: LayoutIO,
	argsFile: HfArgsFile | null,
	state: HfStateFacts | null,
	warnings: string[],
): Promise<DeclaredRetention | null> {
	if (argsFile === null && state === null) return null;
	const args = argsFile === null ? null : await readArgs(io, argsFile, warnings);
	const argsFrom = argsFile?.from ?? '';
	const limit = pyInt(args?.limit);
	// None, or ≤ 0 (_rotate_checkpoints returns early): the job never deletes.
	const keep = args?.limit === undefined ? null : limit !== null && limit >= 1 ? limit : 'all';
	const facts = [...(args?.facts ?? []), ...(state === null ? [] : stateFacts(state, args?.strategy ?? null))];
	return {
		keep,
		from: keep !== null ? `${argsFrom} save_total_limit` : (argsFile?.from ?? state?.from ?? ''),
		monitor: monitorOf(args, argsFrom),
		cadence: cadenceOf(args, argsFrom, state),
		facts,
	};
}
