// Streaming reader of memory logs for `traintop --analyze`: our JSON Lines, the seed tool's
// pretty-printed records one after another, a JSON array of records, any of them gzipped.
// Constant memory in the file size; bad input is skipped and reported, never fatal.

import {createReadStream} from 'node:fs';
import {readdir, stat} from 'node:fs/promises';
import path from 'node:path';
import {pipeline, type Readable} from 'node:stream';
import {createGunzip} from 'node:zlib';
import {UsageError} from '../core/errors.js';
import {logRecordReadSchema, type ReadLogRecord} from './record.js';
import {describe, ObjectSplitter, type SplitSink} from './split-objects.js';

export interface SkippedLine {
	readonly file: string;
	readonly line: number;
	readonly reason: string;
}

export interface LocatedRecord {
	readonly record: ReadLogRecord;
	readonly file: string;
	readonly line: number;
	/** Date.parse(record.timestamp) */
	readonly time: number;
}

const MEMORY_LOG_NAME = /^traintop-memory.*\.jsonl/;
const CHUNK = 256 * 1024;
/** A line longer than this goes to the splitter in pieces instead of being held whole. */
const MAX_HELD_LINE = 1024 * 1024;

function globToRegExp(pattern: string): RegExp {
	let re = '^';
	for (const ch of pattern) {
		if (ch === '*') re += '[^/]*';
		else if (ch === '?') re += '[^/]';
		else re += ch.replace(/[\\^$.|+(){}[\]]/g, '\\$&');
	}
	return new RegExp(re + '$');
}

async function statOrNull(p: string): Promise<import('node:fs').Stats | null> {
	try {
		return await stat(p);
	} catch {
		return null;
	}
}

async function memoryLogsIn(dir: string): Promise<string[]> {
	const names = (await readdir(dir)).filter(n => MEMORY_LOG_NAME.test(n)).sort();
	const files: string[] = [];
	for (const name of names) {
		const full = path.join(dir, name);
		if ((await statOrNull(full))?.isFile()) files.push(full);
	}
	return files;
}

/**
 * Files, globs (`*` and `?` in the last path segment) and run directories (their
 * traintop-memory*.jsonl* files, sorted), in the order given, without duplicates. A path that
 * matches nothing is a UsageError naming it.
 */
export async function resolveInputs(args: readonly string[]): Promise<string[]> {
	const out: string[] = [];
	const seen = new Set<string>();
	const add = (f: string): void => {
		if (!seen.has(f)) {
			seen.add(f);
			out.push(f);
		}
	};
	for (const arg of args) {
		const base = path.basename(arg);
		if (/[*?]/.test(base)) {
			const dir = path.dirname(arg);
			const re = globToRegExp(base);
			let names: string[];
			try {
				names = await readdir(dir);
			} catch {
				throw new UsageError(`${arg}: matches no file (cannot read the directory ${dir})`);
			}
			const matched: string[] = [];
			for (const name of names.sort()) {
				if (!re.test(name) || (name.startsWith('.') && !base.startsWith('.'))) continue;
				const full = path.join(dir, name);
				const st = await statOrNull(full);
				if (st?.isFile()) matched.push(full);
				else if (st?.isDirectory()) matched.push(...(await memoryLogsIn(full)));
			}
			if (matched.length === 0) throw new UsageError(`${arg}: matches no file`);
			matched.forEach(add);
			continue;
		}
		const st = await statOrNull(arg);
		if (st === null) throw new UsageError(`${arg}: no such file or directory`);
		if (st.isDirectory()) {
			const files = await memoryLogsIn(arg);
			if (files.length === 0) throw new UsageError(`${arg}: a directory with no traintop-memory*.jsonl* file`);
			files.forEach(add);
		} else {
			add(arg);
		}
	}
	return out;
}

// --- validation ---------------------------------------------------------------------------------

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
			!num(g['index']) ||
			!nullNum(g['memory_used_gb']) ||
			!nullNum(g['memory_total_gb']) ||
			!nullNum(g['memory_percent']) ||
			!optNullNum(g['peak_memory_percent']) ||
			!optNullNum(g['utilization_percent']) ||
			!optNullStr(g['uuid']) ||
			!optNullStr(g['name'])
		)
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
			typeof a['time'] !== 'string' ||
			typeof a['metric'] !== 'string' ||
			!num(a['value']) ||
			!num(a['threshold']) ||
			typeof a['from'] !== 'string' ||
			typeof a['to'] !== 'string'
		)
			return false;
	}
	return true;
}

/**
 * A fast structural check, never laxer than logRecordReadSchema (the rule): what it accepts the
 * schema accepts too. Whatever it rejects goes to the schema, which gives the reason.
 */
export function fastCheck(r: Obj): boolean {
	const m = r['memory'];
	if (m !== null) {
		if (!isObj(m)) return false;
		if (
			!num(m['total_gb']) ||
			!num(m['used_gb']) ||
			!num(m['percent']) ||
			!optNum(m['available_gb']) ||
			!optNum(m['peak_percent']) ||
			!optNum(m['peak_used_gb'])
		)
			return false;
	}
	const s = r['swap'];
	if (s !== undefined && s !== null) {
		if (!isObj(s)) return false;
		if (
			!num(s['total_gb']) ||
			!num(s['used_gb']) ||
			!num(s['percent']) ||
			!optNum(s['peak_percent'])
		)
			return false;
	}
	const g = r['gpu'];
	if (g !== undefined && g !== null) {
		if (!isObj(g)) return false;
		if (
			!num(g['memory_allocated_gb']) ||
			!num(g['memory_total_gb']) ||
			!num(g['memory_percent']) ||
			!optNum(g['peak_memory_percent'])
		)
			return false;
	}
	return (
		optStr(r['host']) &&
		optNum(r['interval_s']) &&
		optNum(r['samples']) &&
		optStr(r['gpu_status']) &&
		optStr(r['gpu_message']) &&
		gpusOk(r['gpus']) &&
		alertsOk(r['alerts'])
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

/** The record, or the reason it is none. */
export function checkRecord(value: unknown): {record: ReadLogRecord; time: number} | {reason: string} {
	if (!isObj(value)) return {reason: `not an object: ${describe(value)}`};
	const ts = value['timestamp'];
	if (typeof ts === 'string') {
		const time = Date.parse(ts);
		// Extra fields stay on the object: the type does not name them and nothing reads them.
		if (!Number.isNaN(time) && fastCheck(value)) return {record: value as ReadLogRecord, time};
	}
	const parsed = logRecordReadSchema.safeParse(value);
	if (parsed.success) return {record: parsed.data, time: Date.parse(parsed.data.timestamp)};
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

// --- reading ------------------------------------------------------------------------------------

function open(file: string): Readable {
	const raw = createReadStream(file, {highWaterMark: CHUNK});
	let src: Readable = raw;
	if (file.endsWith('.gz')) {
		src = pipeline(raw, createGunzip({chunkSize: CHUNK}), () => {
			// Errors surface through the iteration of the last stream.
		});
	}
	src.setEncoding('utf8');
	return src;
}

function errorCode(error: unknown): string | undefined {
	const code = (error as {code?: unknown} | null)?.code;
	return typeof code === 'string' ? code : undefined;
}

/**
 * Streams the records of every file in order, pushing bad input to `skipped`. Throws a
 * UsageError naming a file that cannot be read or holds no memory record at all.
 */
export async function* readRecords(files: readonly string[], skipped: SkippedLine[]): AsyncGenerator<LocatedRecord> {
	for (const file of files) {
		const out: LocatedRecord[] = [];
		let count = 0;
		let skippedHere = 0;
		const handle = (value: unknown, line: number): void => {
			const r = checkRecord(value);
			if ('record' in r) out.push({record: r.record, file, line, time: r.time});
			else {
				skippedHere++;
				skipped.push({file, line, reason: r.reason});
			}
		};
		const sink: SplitSink = {
			object(text, line) {
				let value: unknown;
				try {
					value = JSON.parse(text);
				} catch (error) {
					skippedHere++;
					skipped.push({file, line, reason: `not JSON: ${(error as Error).message}`});
					return;
				}
				handle(value, line);
			},
			bad(line, reason) {
				skippedHere++;
				skipped.push({file, line, reason});
			},
		};
		const splitter = new ObjectSplitter(sink);
		let tail = '';
		/** Part of the current line already went to the splitter. */
		let lineInSplitter = false;

		const doLine = (line: string): void => {
			if (lineInSplitter) {
				splitter.feed(line);
				splitter.endLine();
				lineInSplitter = false;
				return;
			}
			// Fast path: a JSON Lines record.
			let end = line.length - 1;
			if (line.charCodeAt(end) === 0x0d) end--;
			if (splitter.idle && line.charCodeAt(0) === 0x7b && line.charCodeAt(end) === 0x7d) {
				let value: unknown;
				let ok = true;
				try {
					value = JSON.parse(line);
				} catch {
					ok = false;
				}
				if (ok) {
					handle(value, splitter.line);
					splitter.skipLine();
					return;
				}
			}
			splitter.feed(line);
			splitter.endLine();
		};

		const stream = open(file);
		try {
			for await (const chunk of stream as AsyncIterable<string>) {
				let text = tail.length === 0 ? chunk : tail + chunk;
				let start = 0;
				let nl = text.indexOf('\n');
				while (nl !== -1) {
					doLine(text.slice(start, nl));
					start = nl + 1;
					nl = text.indexOf('\n', start);
				}
				tail = start === 0 ? text : text.slice(start);
				text = '';
				if (tail.length > MAX_HELD_LINE) {
					splitter.feed(tail);
					tail = '';
					lineInSplitter = true;
				}
				if (out.length > 0) {
					count += out.length;
					for (const r of out) yield r;
					out.length = 0;
				}
			}
		} catch (error) {
			const code = errorCode(error);
			if (code?.startsWith('Z_') === true) {
				sink.bad(splitter.line, `gzip: ${(error as Error).message}`);
			} else {
				throw new UsageError(`cannot read ${file}: ${code ?? (error as Error).message}`);
			}
		} finally {
			stream.destroy();
		}
		if (tail.length > 0 || lineInSplitter) {
			// The last line has no newline: a record whose end was cut off is "truncated".
			if (lineInSplitter || !splitter.idle) splitter.feed(tail);
			else doLineAtEnd(tail, splitter, handle);
		}
		splitter.finish();
		count += out.length;
		for (const r of out) yield r;
		out.length = 0;
		if (count === 0) {
			const why = skippedHere === 0 ? 'it is empty' : `${skippedHere} line(s) skipped as bad input`;
			throw new UsageError(`${file}: no memory record in it (${why})`);
		}
	}
}

/** The last line of a file, with no newline after it. */
function doLineAtEnd(line: string, splitter: ObjectSplitter, handle: (value: unknown, line: number) => void): void {
	if (line.charCodeAt(0) === 0x7b) {
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch {
			// Fed to the splitter below: an unclosed object is reported as truncated at finish().
			splitter.feed(line);
			return;
		}
		handle(value, splitter.line);
		splitter.skipLine();
		return;
	}
	splitter.feed(line);
}
