import {fsPath} from '../system/byte-names.js';
import {readRegular} from '../system/safe-read.js';
import {jsonProblem} from './json-problem.js';

// The checkpoint scan's reads of files: lenient reads of small JSON and text files, the head or tail of a file, a
// slice at an offset. Files are opened only through system/safe-read.ts (regular files only: a FIFO would block),
// never throwing: a layout gets null or an error text (listings and stats are fs.ts).

export type JsonRead =
	| {readonly status: 'missing'}
	| {readonly status: 'error'; readonly error: string}
	| {readonly status: 'ok'; readonly value: unknown};

/** Bigger files are not parsed (a trainer_state.json of a very long run is a few MB). */
const MAX_JSON_BYTES = 32 * 1024 * 1024;
/** Told about each file a read would not open (a FIFO where a checkpoint file belongs), with the reason. */
export type SkippedFile = (file: string, reason: string) => void;

const NOT_TOLD: SkippedFile = () => {};

/** Parses a JSON file without throwing: missing, an error text (unreadable, too big, not a regular file, malformed), or the value. */
export async function readJson(file: string): Promise<JsonRead> {
	const read = await readRegular(fsPath(file), MAX_JSON_BYTES, 'head', MAX_JSON_BYTES);
	if (read.status === 'missing') return read;
	if (read.status === 'refused') return {status: 'error', error: `skipped: ${read.reason}`};
	if (read.status === 'error') return read;
	try {
		return {status: 'ok', value: JSON.parse(read.bytes.toString('utf8')) as unknown};
	} catch (caught) {
		return {status: 'error', error: jsonProblem(caught)};
	}
}

/** The first `maxBytes` of a file as UTF-8, or null when it cannot be read. */
export async function readText(file: string, maxBytes = 4096, skipped: SkippedFile = NOT_TOLD): Promise<string | null> {
	const bytes = await readRange(file, maxBytes, 'head', skipped);
	return bytes === null ? null : bytes.toString('utf8');
}

/**
 * Up to `count` bytes from the start (`head`) or the end (`tail`) of a file; null when it cannot be read. A file that
 * is not a regular one is not opened: `skipped` is told why.
 */
export async function readRange(
	file: string,
	count: number,
	from: 'head' | 'tail',
	skipped: SkippedFile = NOT_TOLD,
): Promise<Buffer | null> {
	const read = await readRegular(fsPath(file), count, from);
	if (read.status === 'refused') skipped(file, read.reason);
	return read.status === 'ok' ? read.bytes : null;
}

/** A slice of a file, with the file's size when it was read. */
export interface FileSlice {
	readonly bytes: Buffer;
	readonly size: number;
}

/**
 * Up to `count` bytes at byte `offset` of a file (fewer at its end), with its size; null when it cannot be read. A file
 * that is not a regular one is not opened: `skipped` is told why.
 */
export async function readAt(
	file: string,
	offset: number,
	count: number,
	skipped: SkippedFile = NOT_TOLD,
): Promise<FileSlice | null> {
	const read = await readRegular(fsPath(file), count, {offset});
	if (read.status === 'refused') skipped(file, read.reason);
	return read.status === 'ok' ? {bytes: read.bytes, size: read.size} : null;
}
