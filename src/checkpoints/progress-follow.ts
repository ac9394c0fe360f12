// One followed step file, looked at once per reader refresh: one stat, and a bounded read only when its inode, size
// or mtime changed since the last look. Only a regular file is opened, as system/safe-read.ts does it (a FIFO named
// like a log must not block traintop): the stat says a file, the open is O_NONBLOCK, the fstat checks again. Here one
// open serves all the slices of one look (a CSV's header and last rows): a Monitor tick pays for each round trip to
// libuv's pool. Never throws: a look says missing, refused, an error, the same, or what was read.

import {constants} from 'node:fs';
import {type FileHandle, open, stat} from 'node:fs/promises';
import {errorMessage} from '../core/errors.js';
import {fsPath} from '../system/byte-names.js';
import {metricsCsvStep} from './progress-csv.js';
import {logLineStep} from './progress-log-line.js';
import {trainerStateStep, trainerStateSteps, trainerStateStepsFromEnds} from './progress-trainer-state.js';

export type FollowedKind = 'metrics-csv' | 'trainer-state' | 'progress-file';

export interface FileStamp {
	readonly ino: number;
	readonly size: number;
	readonly mtimeMs: number;
}

export type Look =
	| {readonly status: 'missing'}
	| {readonly status: 'refused' | 'error'; readonly why: string}
	| {readonly status: 'same'}
	/**
	 * Read: `parsed` false when its content says nothing yet (a cut write, a CSV with no complete row, a log with no
	 * complete line); `step` the step it names, null when none.
	 */
	| {readonly status: 'read'; readonly stamp: FileStamp; readonly parsed: boolean; readonly step: number | null};

/** How much of each file is read at most: the header line, the last rows or lines, a small state whole. */
const CSV_HEAD = 16 * 1024;
/** A tail is read small first (a row or a log line is short), and up to TAIL when that held no complete one. */
const TAIL_FIRST = 4 * 1024;
const TAIL = 64 * 1024;
const STATE_WHOLE = 1024 * 1024;
const STATE_HEAD = 4 * 1024;

/** As system/safe-read.ts opens: a FIFO swapped in after the stat must open at once, not wait for a writer. */
const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

function sameStamp(a: FileStamp | null, b: FileStamp): boolean {
	return a !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** An open regular file: `slice` reads `count` bytes from the start (`head`) or the end (`tail`) as UTF-8. */
interface Opened {
	readonly size: number;
	slice(count: number, from: 'head' | 'tail'): Promise<string>;
}

/** Opens `file` once for all the reads of one look (one open and one fstat, however many slices). */
async function withFile<T>(file: string, use: (opened: Opened) => Promise<T>): Promise<T> {
	let handle: FileHandle | undefined;
	try {
		handle = await open(fsPath(file), FLAGS);
		const own = await handle.stat();
		if (!own.isFile()) throw new Error('not a regular file');
		const {size} = own;
		const opened = handle;
		return await use({
			size,
			async slice(count, from) {
				const start = from === 'head' ? 0 : Math.max(0, size - count);
				const buffer = Buffer.alloc(Math.max(0, Math.min(count, size - start)));
				const {bytesRead} = await opened.read(buffer, 0, buffer.length, start);
				return buffer.subarray(0, bytesRead).toString('utf8');
			},
		});
	} finally {
		await handle?.close().catch(() => {});
	}
}

type Parsed = {readonly parsed: boolean; readonly step: number | null};

/** Parses the tail read small first, then up to TAIL when the small one held nothing complete. */
async function fromTail(file: Opened, parse: (tail: string, whole: boolean) => Parsed): Promise<Parsed> {
	const small = parse(await file.slice(TAIL_FIRST, 'tail'), file.size <= TAIL_FIRST);
	if (small.parsed || file.size <= TAIL_FIRST) return small;
	return parse(await file.slice(TAIL, 'tail'), file.size <= TAIL);
}

async function parse(file: Opened, kind: FollowedKind): Promise<Parsed> {
	if (kind === 'metrics-csv') {
		const head = await file.slice(CSV_HEAD, 'head');
		return fromTail(file, (tail, whole) => {
			const step = metricsCsvStep(head, tail, whole);
			return {parsed: step !== null, step};
		});
	}
	if (kind === 'trainer-state') {
		const steps =
			file.size <= STATE_WHOLE
				? trainerStateSteps(await file.slice(STATE_WHOLE, 'head'))
				: trainerStateStepsFromEnds(await file.slice(STATE_HEAD, 'head'), await file.slice(TAIL, 'tail'));
		const step = steps === null ? null : trainerStateStep(steps);
		return {parsed: step !== null, step};
	}
	return fromTail(file, (tail, whole) => {
		const line = logLineStep(tail, whole);
		return {parsed: line.complete, step: line.step};
	});
}

/** Looks at `file` once: one stat; reads and parses it only when it changed since `last`. */
export async function look(file: string, kind: FollowedKind, last: FileStamp | null): Promise<Look> {
	let stamp: FileStamp;
	try {
		const own = await stat(fsPath(file));
		if (!own.isFile()) return {status: 'refused', why: 'not a regular file'};
		stamp = {ino: own.ino, size: own.size, mtimeMs: own.mtimeMs};
	} catch (caught) {
		const code = (caught as NodeJS.ErrnoException).code;
		if (code === 'ENOENT' || code === 'ENOTDIR') return {status: 'missing'};
		return {status: 'error', why: errorMessage(caught)};
	}
	if (sameStamp(last, stamp)) return {status: 'same'};
	try {
		return {status: 'read', stamp, ...(await withFile(file, opened => parse(opened, kind)))};
	} catch (caught) {
		return {status: 'error', why: errorMessage(caught)};
	}
}
