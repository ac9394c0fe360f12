// A directory's entries from one readdir, without an lstat per file: for the directories the search lists below the run
// dir. A listing there may be a flat dir of 100k eval samples that no layout claims; the layouts look at names and
// types first, and at sizes and times only of the entries they claim. So each entry has its name and type (the
// dirent's) at once, and its size and times are read when first asked for. Those reads are synchronous (the getter
// cannot wait): a few µs each, made only for what a layout judges. A symlink, or an entry whose dirent has no type
// (some file systems give none), is read at once, as fs.ts entryAt does.
// The getters live on the class: a spread ({...entry}) would lose them. Nothing copies an Entry; keep it that way.

import {type Dirent, lstatSync, readdirSync, readlinkSync, type Stats, statSync} from 'node:fs';
import path from 'node:path';
import {fsPath, nameFromBytes} from '../system/byte-names.js';
import type {Entry} from './fs.js';

class ListedEntry implements Entry {
	readonly name: string;
	readonly type: 'file' | 'dir' | 'other';
	readonly symlink = false;
	readonly linkTarget = null;
	readonly #dir: string;
	#stats: Stats | null | undefined;

	constructor(dir: string, name: string, type: 'file' | 'dir' | 'other') {
		this.#dir = dir;
		this.name = name;
		this.type = type;
	}

	/** Joined when asked for: most entries of a large listing are only ever looked at by name. */
	get path(): string {
		return path.join(this.#dir, this.name);
	}

	/** The lstat, once; null when the entry is gone since it was listed (sizes and times read as 0). */
	#own(): Stats | null {
		if (this.#stats === undefined) {
			try {
				this.#stats = lstatSync(fsPath(this.path));
			} catch {
				this.#stats = null;
			}
		}
		return this.#stats;
	}

	get size(): number {
		return this.#own()?.size ?? 0;
	}

	get mtimeMs(): number {
		return this.#own()?.mtimeMs ?? 0;
	}

	get birthtimeMs(): number {
		return this.#own()?.birthtimeMs ?? 0;
	}
}

function typeOf(stats: {isFile(): boolean; isDirectory(): boolean}): 'file' | 'dir' | 'other' {
	if (stats.isFile()) return 'file';
	return stats.isDirectory() ? 'dir' : 'other';
}

/** What fs.ts entryAt gives, synchronously: a symlink's type, size and times are its target's. */
function readNow(name: string, file: string): Entry | null {
	let own: Stats;
	try {
		own = lstatSync(fsPath(file));
	} catch {
		return null;
	}
	const {size, mtimeMs, birthtimeMs} = own;
	if (!own.isSymbolicLink())
		return {name, path: file, type: typeOf(own), symlink: false, linkTarget: null, size, mtimeMs, birthtimeMs};
	let linkTarget: string | null = null;
	try {
		linkTarget = nameFromBytes(readlinkSync(fsPath(file), {encoding: 'buffer'}));
	} catch {
		// gone since the lstat: the stat below says so
	}
	try {
		const target = statSync(fsPath(file));
		const {size: bytes, mtimeMs: mtime, birthtimeMs: birth} = target;
		return {
			name,
			path: file,
			type: typeOf(target),
			symlink: true,
			linkTarget,
			size: bytes,
			mtimeMs: mtime,
			birthtimeMs: birth,
		};
	} catch {
		return {name, path: file, type: 'missing', symlink: true, linkTarget, size: 0, mtimeMs, birthtimeMs: 0};
	}
}

function fromDirent(dirent: Dirent<string>, name: string, dir: string): Entry | null {
	if (dirent.isFile()) return new ListedEntry(dir, name, 'file');
	if (dirent.isDirectory()) return new ListedEntry(dir, name, 'dir');
	if (dirent.isSymbolicLink()) return readNow(name, path.join(dir, name));
	const typed = dirent.isFIFO() || dirent.isSocket() || dirent.isBlockDevice() || dirent.isCharacterDevice();
	return typed ? new ListedEntry(dir, name, 'other') : readNow(name, path.join(dir, name));
}

/**
 * The dirents of `dir` with their names as system/byte-names.ts keeps them. Read as UTF-8 strings first (a Buffer per
 * name made 100k names cost twice as much); only a listing where some name did not decode (a U+FFFD in it) is read
 * again as bytes.
 */
function direntsOf(dir: string): {readonly dirent: Dirent<string>; readonly name: string}[] {
	const decoded = readdirSync(fsPath(dir), {withFileTypes: true});
	if (!decoded.some(dirent => dirent.name.includes('\ufffd')))
		return decoded.map(dirent => ({dirent, name: dirent.name}));
	return readdirSync(fsPath(dir), {encoding: 'buffer', withFileTypes: true}).map(dirent => ({
		dirent: dirent as unknown as Dirent<string>,
		name: nameFromBytes(dirent.name),
	}));
}

/** The entries of `dir`, sorted by name, each stat'ed only when its size or times are read. Throws what readdir throws. */
export function listEntriesByName(dir: string): Entry[] {
	const entries: Entry[] = [];
	for (const {dirent, name} of direntsOf(dir)) {
		const entry = fromDirent(dirent, name, dir);
		if (entry !== null) entries.push(entry);
	}
	return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
