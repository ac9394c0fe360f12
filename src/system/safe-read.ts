// Reads a file in a directory that someone else writes (a run dir) without letting that directory block traintop.
// open(2) of a FIFO for reading waits until a writer opens it: forever, holding one of libuv's four pool threads. A
// FIFO named checkpoint_metadata.json left `traintop checkpoints` hanging, and once a few rescans had each stuck a
// pool thread, every file operation waited behind them, the memory log and a clean shutdown on SIGTERM included.
//
// So: stat first and open only a regular file (a device is never opened at all); open with O_NONBLOCK, so that a FIFO
// swapped in between the stat and the open opens at once instead of waiting, and O_NOCTTY; then check again with
// fstat what was really opened. Symlinks are followed (a run dir may link its checkpoints elsewhere): what they point
// at must be a regular file. Reads are bounded by the caller's byte count.

import {constants, type PathLike, type Stats} from 'node:fs';
import {type FileHandle, open, stat} from 'node:fs/promises';
import {errorMessage} from '../core/errors.js';

export type SafeRead =
	| {readonly status: 'ok'; readonly bytes: Buffer; readonly size: number}
	| {readonly status: 'missing'}
	/** Not opened on purpose: not a regular file, or over the caller's size limit. */
	| {readonly status: 'refused'; readonly reason: string}
	| {readonly status: 'error'; readonly error: string};

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * What a path that is not a regular file is, in words (`a FIFO`, `a directory`…); null for a regular file. One list
 * for every place that refuses such a path: the run dir's files, --analyze's inputs, the memory log.
 */
export function fileKind(stats: Stats): string | null {
	if (stats.isFile()) return null;
	if (stats.isFIFO()) return 'a FIFO';
	if (stats.isSocket()) return 'a socket';
	if (stats.isCharacterDevice()) return 'a character device';
	if (stats.isBlockDevice()) return 'a block device';
	if (stats.isDirectory()) return 'a directory';
	return 'not a file';
}

/** Why `stats` is not a file traintop reads (`a FIFO, not a regular file`), or null when it is a regular file. */
function notRegular(stats: Stats): string | null {
	const kind = fileKind(stats);
	return kind === null ? null : `${kind}, not a regular file`;
}

function failed(caught: unknown): SafeRead {
	const code = (caught as NodeJS.ErrnoException).code;
	if (code === 'ENOENT' || code === 'ENOTDIR') return {status: 'missing'};
	return {status: 'error', error: errorMessage(caught)};
}

/** Where a read starts: the start of the file, the end (the last count bytes), or a byte offset. */
export type ReadFrom = 'head' | 'tail' | {readonly offset: number};

/**
 * Up to `count` bytes from the start (`head`), the end (`tail`) or an offset of a regular file. With `refuseOver`, a
 * file bigger than that is refused unread (a whole-file read that must not load gigabytes).
 */
export async function readRegular(
	file: PathLike,
	count: number,
	from: ReadFrom,
	refuseOver: number | null = null,
): Promise<SafeRead> {
	let handle: FileHandle | undefined;
	try {
		const before = notRegular(await stat(file));
		if (before !== null) return {status: 'refused', reason: before};
		handle = await open(file, FLAGS);
		const stats = await handle.stat();
		const opened = notRegular(stats);
		if (opened !== null) return {status: 'refused', reason: opened};
		const {size} = stats;
		if (refuseOver !== null && size > refuseOver) {
			return {status: 'refused', reason: `${size} bytes, over the ${refuseOver}-byte limit`};
		}
		const start = from === 'head' ? 0 : from === 'tail' ? Math.max(0, size - count) : Math.min(size, from.offset);
		const length = Math.max(0, Math.min(count, size - start));
		const buffer = Buffer.alloc(length);
		const {bytesRead} = await handle.read(buffer, 0, length, start);
		return {status: 'ok', bytes: buffer.subarray(0, bytesRead), size};
	} catch (caught) {
		return failed(caught);
	} finally {
		await handle?.close().catch(() => {});
	}
}
