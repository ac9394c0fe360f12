import {printable} from '../format/printable.js';

// Every value an agent sends, checked and made safe before any of it reaches a view, a log or a clock. An agent
// is another program on another machine (or something that answers in its place over ssh): what it says is
// input, as a file's contents are. The schemas in protocol.ts check a message's shape; this checks its values,
// all of them, in one walk (cheaper than a field-by-field schema of the whole snapshot, 64 times a second):
// - Every string, object keys included (metric names, signal names), passes the one printable filter: a job id,
//   a rank state, an error or a checkpoint kind that carries `ESC ]0;…` shows as `\e]0;…`, never retitles or
//   clears the terminal of the TUI, of headless output, or of whoever reads a log with `cat`.
// - Every number is finite (JSON's `1e400` parses as Infinity), and within what the quantity can be: epoch-ms
//   times within what a Date holds (a time of 1e300 threw "Invalid time value" in the memory log and killed the
//   viewer), counts and ids non-negative safe integers, percentages within [0, 1e6], anything else within ±2^63
//   (no counter, size or tick traintop reads is larger).
// - Nesting is bounded (the deepest message, a rank's signal disposition in a snapshot, is 10 levels).

/**
 * Epoch-ms fields: a Date holds ±8.64e15 ms; none of these can be before 1970. Also read by the bench's agent replay
 * (bench/lib/agent-replay.mjs, from the build), which moves them to now.
 * @public
 */
export const TIME_KEYS: ReadonlySet<string> = new Set([
	'time',
	'clock',
	'sampledAt',
	'readAt',
	'startedAt',
	'endedAt',
	'scannedAt',
	'at',
	'submitTime',
	'startTime',
	'endTime',
	'retryAt',
	'periodicTime',
	'nextAt',
	'overdueAt',
	'lastSaveAt',
	'since',
	'lastProgressAt',
	'pssAt',
	'reachesThresholdAt',
]);
const MAX_TIME = 8.64e15;

/** Counts, ids and indexes: whole, non-negative, exact. */
const COUNT_KEYS = new Set([
	'pid',
	'ppid',
	'rank',
	'localRank',
	'worldSize',
	'localWorldSize',
	'procId',
	'restartCount',
	'restarts',
	'index',
	'tick',
	'cores',
	'protocol',
	'start_time',
	'tasks',
	'keep',
	'count',
]);

/** Far above any share traintop computes (a rank's CPU percent is of one core: 100 × the cores it uses). */
const MAX_PERCENT = 1e6;
const MAX_ANY = 2 ** 63;
const MAX_DEPTH = 24;

export type Checked = {readonly ok: true; readonly value: unknown} | {readonly ok: false; readonly error: string};

class OutOfRange extends Error {}

/** What range a number under a key must be in: decided once per key name (a snapshot repeats the same few). */
type Rule = 'time' | 'count' | 'percent' | 'any';
const RULES = new Map<string, Rule>();
const MAX_RULES = 4096;

function ruleOf(key: string): Rule {
	let rule = RULES.get(key);
	if (rule === undefined) {
		rule = TIME_KEYS.has(key) ? 'time' : COUNT_KEYS.has(key) ? 'count' : /percent$/i.test(key) ? 'percent' : 'any';
		// An agent could send ever new key names: the cache stays bounded.
		if (RULES.size < MAX_RULES) RULES.set(key, rule);
	}
	return rule;
}

/**
 * Where the walk is, as the keys and indexes from the top: written out (`ranks[3].pid`) only for an error. Building
 * the path string for every value, as the walk first did, was a quarter of the many-node viewer's garbage.
 */
type Path = (string | number)[];

function whereOf(path: Path): string {
	let where = '';
	for (const part of path) where += typeof part === 'number' ? `[${part}]` : where === '' ? part : `.${part}`;
	return where;
}

function checkedNumber(value: number, key: string, path: Path): number {
	if (!Number.isFinite(value)) throw new OutOfRange(`${whereOf(path)} is not a finite number`);
	switch (ruleOf(key)) {
		case 'time':
			if (value < 0 || value > MAX_TIME) throw new OutOfRange(`${whereOf(path)} = ${value} is not a time (epoch ms)`);
			break;
		case 'count':
			if (!Number.isSafeInteger(value) || value < 0) throw new OutOfRange(`${whereOf(path)} = ${value} is not a count`);
			break;
		case 'percent':
			if (value < 0 || value > MAX_PERCENT) throw new OutOfRange(`${whereOf(path)} = ${value} is not a percentage`);
			break;
		default:
			if (Math.abs(value) > MAX_ANY) throw new OutOfRange(`${whereOf(path)} = ${value} is out of range`);
	}
	return value;
}

// `path` is pushed and popped around each step down; on a throw it is left as it was at the value out of range.
function walk(value: unknown, key: string, path: Path, exact: boolean, exactUnder?: string): unknown {
	if (typeof value === 'string') return exact ? value : printable(value);
	if (typeof value === 'number') return checkedNumber(value, key, path);
	if (value === null || typeof value !== 'object') return value;
	if (path.length >= MAX_DEPTH) throw new OutOfRange(`${whereOf(path)} is nested deeper than ${MAX_DEPTH} levels`);
	if (Array.isArray(value)) {
		let copy: unknown[] | null = null;
		for (let i = 0; i < value.length; i++) {
			// An array's items are named by the array's own key: `ranks[3].pid`, and a list of times is times.
			path.push(i);
			const item = walk(value[i], key, path, exact);
			path.pop();
			if (item === value[i]) continue;
			copy ??= [...value];
			copy[i] = item;
		}
		return copy ?? value;
	}
	const object = value as Record<string, unknown>;
	let copy: Record<string, unknown> | null = null;
	// for…in, not Object.keys: no array of keys per object (a parsed line's objects are its own, plain ones).
	for (const name in object) {
		const shownKey = exact ? name : printable(name);
		const inside = exact || (path.length === 0 && name === exactUnder);
		path.push(shownKey);
		const item = walk(object[name], name, path, inside);
		path.pop();
		if (shownKey !== name) {
			copy ??= {...object};
			delete copy[name];
			copy[shownKey] = item;
		} else if (item !== object[name]) {
			copy ??= {...object};
			copy[name] = item;
		}
	}
	return copy ?? object;
}

/**
 * A parsed line with every string made printable and every number checked (see above); the same object when
 * nothing needed changing. Not ok: the first value out of range, named by its path (`snapshot.time = 1e+300 …`).
 * `exactUnder`: a top-level key whose strings are kept as sent (numbers still checked): a rank's detail, whose argv
 * is shown quoted for the shell (`$'a\nb'`, exactly what to type) and made printable line by line by its one view.
 */
export function checkedWireValue(value: unknown, exactUnder?: string): Checked {
	try {
		return {ok: true, value: walk(value, '', [], false, exactUnder)};
	} catch (error) {
		if (error instanceof OutOfRange) return {ok: false, error: error.message};
		throw error;
	}
}
