// Streaming reader of memory logs for `traintop --analyze`: our JSON Lines, the seed tool's
// pretty-printed records one after another, a JSON array of records, any of them gzipped.
// Constant memory in the file size; bad input is skipped and reported, never fatal.
//
// It works on bytes: lines are cut at 0x0A (never part of a multi-byte UTF-8 character), and a
// line that looks like one JSON Lines record goes first to the byte scanner when the caller has
// one (readSeries), then to JSON.parse; only what neither takes is decoded for the splitter.

import {stat} from 'node:fs/promises';
import {StringDecoder} from 'node:string_decoder';
import {UsageError} from '../core/errors.js';
import {printable} from '../format/printable.js';
import {checkRecord} from './check-record.js';
import {openLog} from './inputs.js';
import {RecordFields} from './record-fields.js';
import type {ReadLogRecord} from './record.js';
import {LineScanner} from './scan-line.js';
import {SeriesCollector} from './series.js';
import type {Series} from './series-types.js';
import type {SkipSink} from './skipped-lines.js';
import {ObjectSplitter, type SplitSink} from './split-objects.js';

export {resolveInputs} from './inputs.js';
export type {SkippedLine, SkipSink} from './skipped-lines.js';

export interface LocatedRecord {
	readonly record: ReadLogRecord;
	readonly file: string;
	readonly line: number;
	/** Date.parse(record.timestamp) */
	readonly time: number;
}

const CHUNK = 256 * 1024;
/** A line longer than this goes to the splitter in pieces instead of being held whole. */
const MAX_HELD_LINE = 1024 * 1024;
/** Records scanned before the log's record count is estimated from their average length. */
const ESTIMATE_AFTER = 1000;
const NEWLINE = 0x0a;
const CR = 0x0d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** Where the records of one file go. */
interface FileSink {
	/** A record read the slow way (JSON.parse, then the schema). */
	record(record: ReadLogRecord, time: number, line: number): void;
	/**
	 * Offered first for each line that looks like one JSON Lines record: true when it took the
	 * line as a record (the caller counts it), false to leave it to JSON.parse.
	 */
	readonly scan?: (buf: Buffer, start: number, end: number) => boolean;
}

function errorCode(error: unknown): string | undefined {
	const code = (error as {code?: unknown} | null)?.code;
	return typeof code === 'string' ? code : undefined;
}

/** What readFile made of one file: its records, and why it had none. */
interface FileResult {
	readonly file: string;
	readonly records: number;
	readonly skipped: number;
}

/** Files with no memory record: left out with a note when other files had records, an error when none had. */
function settleEmptyFiles(results: readonly FileResult[], skipped: SkipSink): void {
	const empty = results.filter(r => r.records === 0);
	if (empty.length === 0) return;
	const why = (r: FileResult) => (r.skipped === 0 ? 'it is empty' : `${r.skipped} line(s) skipped as bad input`);
	// A name from a run dir's listing or a glob is the file system's: shown, never obeyed.
	const name = (r: FileResult) => printable(r.file);
	if (empty.length === results.length) {
		const [only] = empty;
		if (empty.length === 1 && only) throw new UsageError(`${name(only)}: no memory record in it (${why(only)})`);
		const listed = empty.slice(0, 5).map(r => `${name(r)}: ${why(r)}`);
		const more = empty.length > 5 ? `; and ${empty.length - 5} more` : '';
		throw new UsageError(`no memory record in any input: ${listed.join('; ')}${more}`);
	}
	for (const r of empty) skipped.leaveOut?.(r.file, `no memory record in it (${why(r)})`);
}

/**
 * Reads one file into `sink`, pushing bad input to `skipped`; returns its counts.
 * Throws a UsageError when the file cannot be read or is not a regular file.
 */
async function readFile(file: string, skipped: SkipSink, sink: FileSink): Promise<FileResult> {
	let count = 0;
	let skippedHere = 0;
	const bad = (line: number, reason: string): void => {
		skippedHere++;
		skipped.push({file, line, reason});
	};
	const handle = (value: unknown, line: number): void => {
		const r = checkRecord(value);
		if ('record' in r) {
			count++;
			sink.record(r.record, r.time, line);
		} else {
			bad(line, r.reason);
		}
	};
	const splitSink: SplitSink = {
		object(text, line) {
			let value: unknown;
			try {
				value = JSON.parse(text);
			} catch (error) {
				bad(line, `not JSON: ${(error as Error).message}`);
				return;
			}
			handle(value, line);
		},
		bad,
	};
	const splitter = new ObjectSplitter(splitSink);
	/** Decodes the pieces of a line too long to hold (a piece may end inside a character). */
	const decoder = new StringDecoder('utf8');
	/** Part of the current line already went to the splitter. */
	let lineInSplitter = false;
	const scan = sink.scan;

	/** buf[start, end): one line without its newline. */
	const doLine = (buf: Buffer, start: number, end: number): void => {
		if (lineInSplitter) {
			splitter.feed(decoder.write(buf.subarray(start, end)) + decoder.end());
			splitter.endLine();
			lineInSplitter = false;
			return;
		}
		const last = end > start && buf[end - 1] === CR ? end - 2 : end - 1;
		if (splitter.idle && last > start && buf[start] === OPEN_BRACE && buf[last] === CLOSE_BRACE) {
			if (scan?.(buf, start, last + 1) === true) {
				count++;
				splitter.skipLine();
				return;
			}
			let value: unknown;
			let parsed = true;
			try {
				value = JSON.parse(buf.toString('utf8', start, end));
			} catch {
				parsed = false;
			}
			if (parsed) {
				handle(value, splitter.line);
				splitter.skipLine();
				return;
			}
		}
		splitter.feed(buf.toString('utf8', start, end));
		splitter.endLine();
	};

	/** The start of the current line, from earlier chunks. */
	let pending: Buffer | null = null;
	const stream = await openLog(file, CHUNK);
	try {
		for await (const chunk of stream as AsyncIterable<Buffer>) {
			let start = 0;
			let nl = chunk.indexOf(NEWLINE);
			if (pending !== null && nl !== -1) {
				// Only the line that straddles the chunks is copied, never the chunk.
				const line: Buffer = Buffer.concat([pending, chunk.subarray(0, nl)]);
				pending = null;
				doLine(line, 0, line.length);
				start = nl + 1;
				nl = chunk.indexOf(NEWLINE, start);
			}
			while (nl !== -1) {
				doLine(chunk, start, nl);
				start = nl + 1;
				nl = chunk.indexOf(NEWLINE, start);
			}
			if (start < chunk.length) {
				const rest = chunk.subarray(start);
				pending = pending === null ? Buffer.from(rest) : Buffer.concat([pending, rest]);
				if (pending.length > MAX_HELD_LINE) {
					splitter.feed(decoder.write(pending));
					pending = null;
					lineInSplitter = true;
				}
			}
		}
	} catch (error) {
		const code = errorCode(error);
		if (code?.startsWith('Z_') === true) {
			bad(splitter.line, `gzip: ${(error as Error).message}`);
		} else {
			throw new UsageError(`cannot read ${printable(file)}: ${code ?? printable((error as Error).message)}`);
		}
	} finally {
		stream.destroy();
	}
	if (lineInSplitter) {
		splitter.feed((pending === null ? '' : decoder.write(pending)) + decoder.end());
	} else if (pending !== null) {
		// The last line has no newline: a record whose end was cut off is "truncated".
		const text = pending.toString('utf8');
		if (!splitter.idle) splitter.feed(text);
		else lastLine(text, splitter, handle);
	}
	splitter.finish();
	return {file, records: count, skipped: skippedHere};
}

/** The last line of a file, with no newline after it. */
function lastLine(line: string, splitter: ObjectSplitter, handle: (value: unknown, line: number) => void): void {
	if (line.charCodeAt(0) === OPEN_BRACE) {
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

/**
 * Every record of every file, in order, as objects with where they came from; bad input goes to
 * `skipped`. Holds them all: for tests and small inputs (readSeries is the path for big logs).
 * Throws a UsageError naming a file that cannot be read, or the files when none holds a memory
 * record; a file without one beside files with some is left out (`skipped.leaveOut`).
 */
export async function readAllRecords(files: readonly string[], skipped: SkipSink): Promise<LocatedRecord[]> {
	const out: LocatedRecord[] = [];
	const results: FileResult[] = [];
	for (const file of files) {
		results.push(await readFile(file, skipped, {record: (record, time, line) => out.push({record, file, line, time})}));
	}
	settleEmptyFiles(results, skipped);
	return out;
}

/**
 * Reads every file into numeric series for the analysis: the path for big logs, where our own
 * JSON Lines records go through the byte scanner and never become objects. Bad input goes to
 * `skipped` (a SkippedLines keeps it in constant memory); files as readAllRecords takes them. Hosts and GPUs past
 * the caps are folded (fold.ts), except `options.keepHost` (`--host`'s), which keeps its own series.
 */
export async function readSeries(
	files: readonly string[],
	skipped: SkipSink,
	options: {readonly keepHost?: string} = {},
): Promise<Series> {
	const collector = new SeriesCollector(options.keepHost);
	const scanner = new LineScanner();
	const fields = new RecordFields();
	// Sizes the columns once from the first lines' length, instead of doubling them to fit.
	let bytesLeft = 0;
	for (const file of files) if (!file.endsWith('.gz')) bytesLeft += (await stat(file).catch(() => null))?.size ?? 0;
	let sampled = 0;
	let sampledBytes = 0;
	const results: FileResult[] = [];
	for (const file of files) {
		const result = await readFile(file, skipped, {
			record: (record, time) => collector.add(record, time),
			scan: (buf, start, end) => {
				if (!scanner.scan(buf, start, end, fields)) return false;
				collector.addFields(fields);
				if (sampled < ESTIMATE_AFTER) {
					sampledBytes += end - start + 1;
					if (++sampled === ESTIMATE_AFTER) collector.reserve((bytesLeft / sampledBytes) * ESTIMATE_AFTER * 1.02);
				}
				return true;
			},
		});
		results.push(result);
	}
	settleEmptyFiles(results, skipped);
	return collector.finish();
}
