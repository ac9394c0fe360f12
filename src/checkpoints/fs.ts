// The checkpoint scan's listings and stats: directory listings with lstat information, the size and shape of a file
// or a directory tree (its reads of files are file-reads.ts). The layouts get these through LayoutIO
// (layouts/layout.ts), so they stay free of node:fs. Names are read as bytes (system/byte-names.ts: a name that is
// not UTF-8 stays itself), so every path here goes to node:fs through fsPath.

import {errorMessage} from '../core/errors.js';
import {fsPath, nameFromBytes} from '../system/byte-names.js';
import {createHash} from 'node:crypto';
import * as libuv from 'node:fs/promises';
import {lstatSync, readdirSync, readlinkSync, statSync, type Stats} from 'node:fs';
import path from 'node:path';
import {isMainThread} from 'node:worker_threads';
import {mapLimited} from './map-limited.js';

/** A synchronous call as a promise of its result (a throw becomes the rejection). */
const awaited =
	<A extends unknown[], R>(call: (...args: A) => R) =>
	async (...args: A): Promise<R> =>
		call(...args);

/**
 * The listings and stats. On the scan's own thread (scan-thread.ts) they are synchronous, awaited all the same: that
 * thread has nothing else to do, a stat costs a fifth of the CPU it does through libuv's pool (100k: 0.27 s, not 1.5 s),
 * and the pool, four threads for the whole process, stays free for the monitor's own reads of /proc. Elsewhere
 * (`traintop checkpoints`, preflight, the tests' in-thread scans) they are libuv's.
 */
const {lstat, readdir, readlink, stat} = isMainThread
	? libuv
	: {
			lstat: awaited(lstatSync) as unknown as typeof libuv.lstat,
			readdir: awaited(readdirSync) as unknown as typeof libuv.readdir,
			readlink: awaited(readlinkSync) as unknown as typeof libuv.readlink,
			stat: awaited(statSync) as unknown as typeof libuv.stat,
		};

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

/** Directory levels treeBytes descends below the checkpoint itself. */
const MAX_TREE_DEPTH = 32;
/**
 * lstat calls one listing has in flight. All at once, a directory of 100k files put 100k requests, their promises and
 * their Stats in memory together (563 MB for `traintop checkpoints`) and their completions on the event loop in a
 * few batches of tens of thousands, each holding it for seconds (issue 26). libuv runs four at once for the whole
 * process: more only queue, and the monitor's own reads (/proc, the memory log) wait behind them.
 */
const STATS_AT_ONCE = 8;

function typeOf(stats: {isFile(): boolean; isDirectory(): boolean}): Entry['type'] {
	if (stats.isFile()) return 'file';
	return stats.isDirectory() ? 'dir' : 'other';
}

/** The names in `dir`, read as bytes so that a name that is not UTF-8 keeps its identity. */
async function listNames(dir: string): Promise<string[]> {
	return (await readdir(fsPath(dir), {encoding: 'buffer'})).map(nameFromBytes);
}

/** The entry for one path, or null when it is gone (removed between readdir and lstat). */
export async function entryAt(file: string): Promise<Entry | null> {
	let own: Stats;
	try {
		own = await lstat(fsPath(file));
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
	const linkTarget = await readlink(fsPath(file), {encoding: 'buffer'}).then(nameFromBytes, () => null);
	try {
		const target = await stat(fsPath(file));
		const {size, mtimeMs, birthtimeMs} = target;
		return {name, path: file, type: typeOf(target), symlink: true, linkTarget, size, mtimeMs, birthtimeMs};
	} catch {
		const {mtimeMs} = own;
		return {name, path: file, type: 'missing', symlink: true, linkTarget, size: 0, mtimeMs, birthtimeMs: 0};
	}
}

/** The entries of `dir`, sorted by name. Throws what readdir throws (ENOENT, ENOTDIR, EACCES). */
export async function listDir(dir: string): Promise<Entry[]> {
	const names = (await listNames(dir)).sort();
	const entries = await mapLimited(names, STATS_AT_ONCE, name => entryAt(path.join(dir, name)));
	return entries.filter((entry): entry is Entry => entry !== null);
}

/**
 * The names in `dir`, sorted, with no lstat per entry (a checkpoint of 100 shards costs one readdir, not 101 calls);
 * null when it cannot be listed. For callers that need only names: use entryAt for the few whose size they read.
 */
export async function listNamesOrNull(dir: string): Promise<string[] | null> {
	try {
		return (await listNames(dir)).sort();
	} catch {
		return null;
	}
}

/**
 * A directory tree's shape, in two parts, found with one stat and one readdir (types from the dirent, no lstat per
 * file) per directory:
 *   - `names`: each directory's inode and the hash of its sorted entry names: what a create, a removal or a rename to
 *     another name changes;
 *   - `times`: each directory's mtime and ctime (nanoseconds): what also a rename away and back, or a file replaced
 *     by a rename over it, changes.
 * A file rewritten in place changes neither. Null when the tree cannot be read whole.
 */
export interface TreeShape {
	readonly names: string;
	readonly times: string;
}

export async function treeShape(root: string): Promise<TreeShape | null> {
	const names: string[] = [];
	const times: string[] = [];
	async function walk(dir: string, depth: number): Promise<boolean> {
		if (depth > MAX_TREE_DEPTH) return false;
		const own = await stat(fsPath(dir), {bigint: true});
		if (!own.isDirectory()) return false;
		const dirents = await readdir(fsPath(dir), {encoding: 'buffer', withFileTypes: true});
		// A hash, not the names: a shape is kept per checkpoint between scans (100 shards × 1000 checkpoints).
		const hash = createHash('sha1');
		for (const name of dirents.map(dirent => dirent.name).sort(Buffer.compare)) hash.update(name).update('\0');
		names.push(`${dir}\0${own.ino}:${dirents.length}:${hash.digest('base64')}`);
		times.push(`${own.mtimeNs}:${own.ctimeNs}`);
		for (const dirent of dirents) {
			if (dirent.isDirectory() && !(await walk(path.join(dir, nameFromBytes(dirent.name)), depth + 1))) return false;
		}
		return true;
	}
	try {
		return (await walk(root, 0)) ? {names: names.join('\n'), times: times.join('\n')} : null;
	} catch {
		return null;
	}
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
			names = await listNames(dir);
		} catch (caught) {
			error ??= errorMessage(caught);
			return NO_FILES;
		}
		const parts = await mapLimited(names, STATS_AT_ONCE, async name => {
			const file = path.join(dir, name);
			try {
				const stats = await lstat(fsPath(file));
				if (stats.isDirectory()) return walk(file, depth + 1);
				return stats.isFile() ? ofFile(stats) : NO_FILES;
			} catch (caught) {
				error ??= errorMessage(caught);
				return NO_FILES;
			}
		});
		return parts.reduce(merge, NO_FILES);
	}
	try {
		const top = await stat(fsPath(root));
		const files = top.isDirectory() ? await walk(root, 0) : top.isFile() ? ofFile(top) : NO_FILES;
		return {...files, error};
	} catch (caught) {
		return {...NO_FILES, error: errorMessage(caught)};
	}
}
