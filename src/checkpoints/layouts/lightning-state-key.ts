// What a ModelCheckpoint was told, from the key Lightning stores its state under in every `.ckpt`'s `callbacks`:
// `ModelCheckpoint{'monitor': 'train_loss', 'mode': 'min', 'every_n_train_steps': 10, 'every_n_epochs': 0,
// 'train_time_interval': None}` (state_key: the class's __qualname__, a subclass's own name, then the repr of those
// five settings). train_time_interval is a timedelta's repr, `datetime.timedelta(seconds=1)`, or None. Neither
// save_top_k nor save_last is in it: they are not stored anywhere in the checkpoint.
// Source: Lightning-AI/pytorch-lightning 2.6.6 src/lightning/pytorch/callbacks/model_checkpoint.py:
// ModelCheckpoint.state_key, __init_triggers (every_n_epochs 1 when no trigger is given, else a missing one is 0);
// callbacks/callback.py: Callback._generate_state_key; Python's timedelta.__repr__ (days=, seconds=, microseconds=,
// the zero ones left out; `datetime.timedelta(0)` when all are zero; positional before Python 3.7).

import {literalGet, parsePyLiteral, type PyLiteral} from './python-literal.js';

export interface ModelCheckpointKey {
	/** The callback's class name as written: ModelCheckpoint, or a subclass's. */
	readonly className: string;
	readonly monitor: string | null;
	readonly mode: 'min' | 'max' | null;
	/** 0 in the key (not by steps) is null here; so for epochs. */
	readonly everyNTrainSteps: number | null;
	readonly everyNEpochs: number | null;
	/** train_time_interval in seconds; null: None. */
	readonly trainTimeIntervalS: number | null;
	/** Each setting as the key writes it, in its order: the facts shown. */
	readonly written: ReadonlyArray<readonly [string, string]>;
}

/** A real key is some 150 characters; a longer one is not a ModelCheckpoint's. */
const MAX_KEY_CHARS = 4096;
const KEY = /^([A-Za-z_][\w.]*)(\{[\s\S]*\})$/;
const SETTINGS = ['monitor', 'mode', 'every_n_train_steps', 'every_n_epochs', 'train_time_interval'] as const;
const TIMEDELTA_UNITS: Record<string, number> = {
	days: 86_400,
	seconds: 1,
	microseconds: 1e-6,
	milliseconds: 1e-3,
	minutes: 60,
	hours: 3600,
	weeks: 604_800,
};
/** timedelta's positional arguments, in order. */
const TIMEDELTA_POSITIONS = ['days', 'seconds', 'microseconds'];

/** A timedelta repr's length in seconds, or null when it is not one. */
function timedeltaSeconds(value: PyLiteral): number | null {
	if (value.kind !== 'call' || !/(?:^|\.)timedelta$/.test(value.name)) return null;
	let seconds = 0;
	const parts: [string, PyLiteral][] = [
		...value.args.map((arg, i): [string, PyLiteral] => [TIMEDELTA_POSITIONS[i] ?? '?', arg]),
		...value.kwargs,
	];
	for (const [unit, amount] of parts) {
		const scale = TIMEDELTA_UNITS[unit];
		if (scale === undefined || amount.kind !== 'number') return null;
		seconds += amount.value * scale;
	}
	return seconds;
}

function wholeNumber(value: PyLiteral | undefined): number | null {
	if (value?.kind !== 'number' || !Number.isSafeInteger(value.value) || value.value < 0) return null;
	return value.value;
}

/**
 * The settings in a ModelCheckpoint state key, or why it is not one: a key of another callback (EarlyStopping's
 * `EarlyStopping{'monitor': …, 'mode': …}`) lacks the three triggers, and is `not a ModelCheckpoint key`.
 */
export function parseModelCheckpointKey(key: string): ModelCheckpointKey | {readonly problem: string} {
	if (key.length > MAX_KEY_CHARS) return {problem: `longer than ${MAX_KEY_CHARS} characters`};
	const match = KEY.exec(key);
	if (!match) return {problem: 'not a class name followed by a dict'};
	const settings = parsePyLiteral(match[2] ?? '');
	if ('problem' in settings) return {problem: settings.problem};
	if (SETTINGS.some(name => literalGet(settings, name) === undefined)) return {problem: 'not a ModelCheckpoint key'};
	const monitor = literalGet(settings, 'monitor');
	const mode = literalGet(settings, 'mode');
	const interval = literalGet(settings, 'train_time_interval');
	const steps = wholeNumber(literalGet(settings, 'every_n_train_steps'));
	const epochs = wholeNumber(literalGet(settings, 'every_n_epochs'));
	const seconds = interval === undefined || interval.kind === 'none' ? null : timedeltaSeconds(interval);
	if (interval !== undefined && interval.kind !== 'none' && seconds === null) {
		return {problem: `train_time_interval ${interval.text} is not a timedelta`};
	}
	return {
		className: match[1] ?? '',
		monitor: monitor?.kind === 'str' ? monitor.value : null,
		mode: mode?.kind === 'str' && (mode.value === 'min' || mode.value === 'max') ? mode.value : null,
		everyNTrainSteps: steps === 0 ? null : steps,
		everyNEpochs: epochs === 0 ? null : epochs,
		trainTimeIntervalS: seconds,
		written: SETTINGS.map(name => [name, literalGet(settings, name)?.text ?? ''] as const),
	};
}
