// The only file-system access of the checkpoint scan: directory listings with lstat information, the size of a file
// or a directory tree, lenient reads of small JSON and text files, and the head or tail of a file. The layouts get
// these through LayoutIO (layouts/layout.ts), so they stay free of node:fs.

import {errorMessage} from '../core/errors.js';
import {type FileHandle, open, lstat, readdir, readFile, readlink, stat} from 'node:fs/promises';
import type {Stats} from 'node:fs';
import path from 'node:path';

/** One directory entry. For a symlink, type, size and mtime are its target's (type `missing` when it dangles). */
export interface Entry {
	readonly name: string;
	/** Absolute. */
	readonly path: string;
	readonly type: 'file' | 'dir' | 'other' | 'missing';
	readonly symlink: boolean;
	/** The symlink's text as written (relative or absolute); null for anything else. */
	readonly linkTarget: string | null;
	readonly size: number;
	/** Epoch ms. */
	readonly mtimeMs: number;
	/** Epoch ms the inode was created (statx btime); 0 where the file system does not record it (tmpfs, NFS). */
	readonly birthtimeMs: number;
}

export type JsonRead =
	| {readonly status: 'missing'}
	| {readonly status: 'error'; readonly error: string}
	| {readonly status: 'ok'; readonly value: unknown};

/** Bigger files are not parsed (a trainer_state.json of a very long run is a few MB). */
const MAX_JSON_BYTES = 32 * 1024 * 1024;
/** Directory levels treeBytes descends below the checkpoint itself. */
const MAX_TREE_DEPTH = 32;

function typeOf(stats: {isFile(): boolean; isDirectory(): boolean}): Entry['type'] {
	if (stats.isFile()) return 'file';
	return stats.isDirectory() ? 'dir' : 'other';
}

/** The entry for one path, or null when it is gone (removed between readdir and lstat). */
export async function entryAt(file: string): Promise<Entry | null> {
	let own: Stats;
	try {
		own = await lstat(file);
	} catch {
		return null;
	}
	const name = path.basename(file);
	if (!own.isSymbolicLink()) {
		return {
			name,
			path: file,
			type: typeOf(own),
			symlink: false,
			linkTarget: null,
			size: own.size,
			mtimeMs: own.mtimeMs,
			birthtimeMs: own.birthtimeMs,
		};
	}
	const linkTarget = await readlink(file).catch(() => null);
	try {
		const target = await stat(file);
		const {size, mtimeMs, birthtimeMs} = target;
		return {name, path: file, type: typeOf(target), symlink: true, linkTarget, size, mtimeMs, birthtimeMs};
	} catch {
		const {mtimeMs} = own;
		return {name, path: file, type: 'missing', symlink: true, linkTarget, size: 0, mtimeMs, birthtimeMs: 0};
	}
}

/** The entries of `dir`, sorted by name. Throws what readdir throws (ENOENT, ENOTDIR, EACCES). */
export async function listDir(dir: string): Promise<Entry[]> {
	const names = (await readdir(dir)).sort();
	const entries = await Promise.all(names.map(name => entryAt(path.join(dir, name))));
	return entries.filter((entry): entry is Entry => entry !== null);
}

/** Like listDir, but null instead of throwing. */
export async function listDirOrNull(dir: string): Promise<Entry[] | null> {
	try {
		return await listDir(dir);
	} catch {
		return null;
	}
}

/** What the regular files of a checkpoint add up to: their bytes, and the span in which they were written. */
export interface TreeStats {
	readonly bytes: number;
	/** The earliest birth time among the files (epoch ms); 0 when the file system records none. */
	readonly firstBirthMs: number;
	/** The latest mtime among the files (epoch ms); 0 when there is no file. */
	readonly lastMtimeMs: number;
	/** The first part that could not be read; null when all could. */
	readonly error: string | null;
}

interface FileStats {
	readonly bytes: number;
	readonly firstBirthMs: number;
	readonly lastMtimeMs: number;
}

const NO_FILES: FileStats = {bytes: 0, firstBirthMs: 0, lastMtimeMs: 0};

function ofFile(stats: Stats): FileStats {
	return {bytes: stats.size, firstBirthMs: stats.birthtimeMs, lastMtimeMs: stats.mtimeMs};
}

function merge(a: FileStats, b: FileStats): FileStats {
	// A birth time of 0 is "not recorded", not the epoch: the earliest recorded one wins.
	const births = [a.firstBirthMs, b.firstBirthMs].filter(ms => ms > 0);
	return {
		bytes: a.bytes + b.bytes,
		firstBirthMs: births.length === 0 ? 0 : Math.min(...births),
		lastMtimeMs: Math.max(a.lastMtimeMs, b.lastMtimeMs),
	};
}

/**
 * Bytes of a file, or of every regular file under a directory (the directory itself may be reached through a
 * symlink; symlinks below it are not followed and count nothing), with the first birth and last mtime among those
 * files: a save creates its files and finishes writing the last one, so the two bound how long it took.
 * `error` names the first part that could not be read.
 */
export async function treeStats(root: string): Promise<TreeStats> {
	let error: string | null = null;
	async function walk(dir: string, depth: number): Promise<FileStats> {
		if (depth > MAX_TREE_DEPTH) {
			error ??= `${dir}: deeper than ${MAX_TREE_DEPTH} levels, not counted`;
			return NO_FILES;
		}
		let names: string[];
		try {
			names = await readdir(dir);
		} catch (caught) {
			error ??= errorMessage(caught);
			return NO_FILES;
		}
		const parts = await Promise.all(
			names.map(async name => {
				const file = path.join(dir, name);
				try {
					const stats = await lstat(file);
					if (stats.isDirectory()) return walk(file, depth + 1);
					return stats.isFile() ? ofFile(stats) : NO_FILES;
				} catch (caught) {
					error ??= errorMessage(caught);
					return NO_FILES;
				}
			}),
		);
		return parts.reduce(merge, NO_FILES);
	}
	try {
		const top = await stat(root);
		const files = top.isDirectory() ? await walk(root, 0) : top.isFile() ? ofFile(top) : NO_FILES;
		return {...files, error};
	} catch (caught) {
		return {...NO_FILES, error: errorMessage(caught)};
	}
}

/** Parses a JSON file without throwing: missing, an error text (unreadable, too big, malformed), or the value. */
export async function readJson(file: string): Promise<JsonRead> {
	try {
		const size = (await stat(file)).size;
		if (size > MAX_JSON_BYTES) return {status: 'error', error: `${size} bytes, over the ${MAX_JSON_BYTES}-byte limit`};
		return {status: 'ok', value: JSON.parse(await readFile(file, 'utf8')) as unknown};
	} catch (caught) {
		if ((caught as NodeJS.ErrnoException).code === 'ENOENT') return {status: 'missing'};
		return {status: 'error', error: errorMessage(caught)};
	}
}

/** The first `maxBytes` of a file as UTF-8, or null when it cannot be read. */
export async function readText(file: string, maxBytes = 4096): Promise<string | null> {
	const bytes = await readRange(file, maxBytes, 'head');
	return bytes === null ? null : bytes.toString('utf8');
}

/** Up to `count` bytes from the start (`head`) or the end (`tail`) of a file; null when it cannot be read. */
export async function readRange(file: string, count: number, from: 'head' | 'tail'): Promise<Buffer | null> {
	let handle: FileHandle | undefined;
	try {
		handle = await open(file, 'r');
		const size = (await handle.stat()).size;
		const length = Math.max(0, Math.min(count, size));
		const buffer = Buffer.alloc(length);
		const position = from === 'head' ? 0 : size - length;
		const {bytesRead} = await handle.read(buffer, 0, length, position);
		return buffer.subarray(0, bytesRead);
	} catch {
		return null;
	} finally {
		await handle?.close().catch(() => {});
	}
}
