// Is a parsed JSON value a memory record? A fast structural check for the common case, the zod
// schema (the rule) for everything else and for the reason a value is not one; then the ranges of
// the values the analysis reads (plausible.ts).

import {outOfRange} from './plausible.js';
import {fillFromRecord, RecordFields} from './record-fields.js';
import {JOB_KEYS} from './record-keys.js';
import {logRecordReadSchema, type ReadLogRecord} from './record.js';
import {describe} from './split-objects.js';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
	return typeof v === 'object' && v !== null && !Array.isArray(v);
}
/** zod's z.number(): finite only (a literal like 1e999 parses to Infinity and must not pass). */
function num(v: unknown): boolean {
	return typeof v === 'number' && Number.isFinite(v);
}
function optNum(v: unknown): boolean {
	return v === undefined || num(v);
}
function nullNum(v: unknown): boolean {
	return v === null || num(v);
}
function optNullNum(v: unknown): boolean {
	return v === undefined || v === null || num(v);
}
function optStr(v: unknown): boolean {
	return v === undefined || typeof v === 'string';
}
function optNullStr(v: unknown): boolean {
	return v === undefined || v === null || typeof v === 'string';
}

function gpusOk(v: unknown): boolean {
	if (v === undefined) return true;
	if (!Array.isArray(v)) return false;
	for (const g of v) {
		if (!isObj(g)) return false;
		if (
			!num(g.index) ||
			!nullNum(g.memory_used_gb) ||
			!nullNum(g.memory_total_gb) ||
			!nullNum(g.memory_percent) ||
			!optNullNum(g.peak_memory_percent) ||
			!optNullNum(g.utilization_percent) ||
			!optNum(g.threshold) ||
			!optNullStr(g.uuid) ||
			!optNullStr(g.name)
		)
			return false;
	}
	return true;
}

/** `memory.cgroup`: absent, or the limit the RAM is judged against. */
function cgroupOk(v: unknown): boolean {
	if (v === undefined) return true;
	if (!isObj(v)) return false;
	return (
		num(v.limit_gb) &&
		num(v.used_gb) &&
		num(v.percent) &&
		optNum(v.peak_percent) &&
		optNum(v.version) &&
		optStr(v.scope) &&
		optStr(v.path)
	);
}

/** Each scheduler's log key: absent, null, or the job the record was written under. */
function jobsOk(r: Obj): boolean {
	for (const key of JOB_KEYS) {
		const v = r[key];
		if (v !== undefined && v !== null && !(isObj(v) && typeof v.job_id === 'string' && num(v.restart_count)))
			return false;
	}
	return true;
}

function alertsOk(v: unknown): boolean {
	if (v === undefined) return true;
	if (!Array.isArray(v)) return false;
	for (const a of v) {
		if (!isObj(a)) return false;
		if (
			typeof a.time !== 'string' ||
			typeof a.metric !== 'string' ||
			!num(a.value) ||
			!num(a.threshold) ||
			typeof a.from !== 'string' ||
			typeof a.to !== 'string'
		)
			return false;
	}
	return true;
}

/**
 * A fast structural check, never laxer than logRecordReadSchema (the rule): what it accepts the
 * schema accepts too. Whatever it rejects goes to the schema, which gives the reason.
 */
function fastCheck(r: Obj): boolean {
	const m = r.memory;
	if (m !== null) {
		if (!isObj(m)) return false;
		if (
			!num(m.total_gb) ||
			!num(m.used_gb) ||
			!num(m.percent) ||
			!optNum(m.available_gb) ||
			!optNum(m.peak_percent) ||
			!optNum(m.peak_used_gb) ||
			!cgroupOk(m.cgroup)
		)
			return false;
	}
	const s = r.swap;
	if (s !== undefined && s !== null) {
		if (!isObj(s)) return false;
		if (!num(s.total_gb) || !num(s.used_gb) || !num(s.percent) || !optNum(s.peak_percent)) return false;
	}
	const g = r.gpu;
	if (g !== undefined && g !== null) {
		if (!isObj(g)) return false;
		if (
			!num(g.memory_allocated_gb) ||
			!num(g.memory_total_gb) ||
			!num(g.memory_percent) ||
			!optNum(g.peak_memory_percent)
		)
			return false;
	}
	return (
		optStr(r.host) &&
		optNum(r.interval_s) &&
		optNum(r.samples) &&
		optStr(r.gpu_status) &&
		optStr(r.gpu_message) &&
		gpusOk(r.gpus) &&
		alertsOk(r.alerts) &&
		jobsOk(r)
	);
}

function valueAt(root: unknown, keys: readonly PropertyKey[]): unknown {
	let v = root;
	for (const k of keys) {
		if (typeof v !== 'object' || v === null) return undefined;
		v = (v as Record<PropertyKey, unknown>)[k];
	}
	return v;
}

/** Scratch for the range check of a record that passed the schema. */
const scratch = new RecordFields();

/** The record when its values are in range (plausible.ts), or the reason it is not. */
function inRange(record: ReadLogRecord, time: number): {record: ReadLogRecord; time: number} | {reason: string} {
	fillFromRecord(scratch, record, time);
	const reason = outOfRange(scratch);
	return reason === null ? {record, time} : {reason};
}

/** The record, or the reason it is none. */
export function checkRecord(value: unknown): {record: ReadLogRecord; time: number} | {reason: string} {
	if (!isObj(value)) return {reason: `not an object: ${describe(value)}`};
	const ts = value.timestamp;
	if (typeof ts === 'string') {
		const time = Date.parse(ts);
		// Extra fields stay on the object: the type does not name them and nothing reads them.
		if (!Number.isNaN(time) && fastCheck(value)) return inRange(value as ReadLogRecord, time);
	}
	const parsed = logRecordReadSchema.safeParse(value);
	if (parsed.success) return inRange(parsed.data, Date.parse(parsed.data.timestamp));
	const issues = parsed.error.issues;
	const first = issues[0];
	if (first === undefined) return {reason: 'not a memory record'};
	const where = first.path.length === 0 ? 'record' : first.path.map(String).join('.');
	let what: string;
	if (first.code === 'invalid_type') {
		what = valueAt(value, first.path) === undefined ? 'missing' : `expected ${first.expected}`;
	} else {
		what = first.message;
	}
	const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
	return {reason: `${where}: ${what}${more}`};
}
