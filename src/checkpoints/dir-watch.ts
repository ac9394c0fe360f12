// The inotify side of the run-dir watcher: one fs.watch per *directory* whose changes can change the checkpoint scan,
// never one per file, and nothing re-listed per event. Which directories: after each scan, exactly those it listed,
// the checkpoints it found that are directories and one level inside them (follow(): their files say whether a save
// finished); before the first scan, and for a directory made since the last, those its path allows (scan-dirs.ts
// wantedDir), so that RUN/ckpts made after the start is watched before the rescan that lists it. chokidar's inotify mode put a watch on every file and, on each event, listed
// the whole directory again and stat()ed every entry: 100k files cost 543 MB idle and a rename storm 100 % CPU and
// 2 GB (issue 17). A directory watch still reports every name created, written, renamed or deleted in it, which is
// all a rescan needs to be triggered; the names are kept (a capped set) only to add watches for new directories.

import {EventEmitter} from 'node:events';
import {type Dir, type Dirent, type FSWatcher, watch} from 'node:fs';
import {lstat, opendir, stat} from 'node:fs/promises';
import type {CheckpointSearch} from '../core/types.js';
import path from 'node:path';
import {MAX_DIRS_LISTED, wantedDir} from './scan-dirs.js';

/**
 * Directories watched by their paths before the first scan says which it lists: a run dir of 1000 checkpoint dirs is
 * watched whole from the start; a tree wider than that is watched as the scan finds it.
 */
const MAX_WATCHES_BEFORE_SCAN = 1000;

/** Names remembered between rescans; past this, each directory that had more is listed once instead. */
const MAX_PENDING = 1000;
/**
 * Events in one second past which the watches are closed until the next settle(): libuv reads inotify until it runs
 * dry, so a storm faster than JS handles its events would hold the event loop (no timer, no status line) and grow
 * memory. The rescan after the pause sees whatever the storm changed; settle() watches again before it.
 */
const MAX_EVENTS_PER_S = 5000;

/**
 * Emits `all` on each change below the watched directories, `error` for a directory that cannot be watched (it goes
 * unwatched; the rest go on) and `ready` once the first walk is done. settle() brings the set of watched
 * directories up to date with the names seen since the last call; CheckpointWatcher calls it before each rescan.
 */
export class DirectoryWatcher extends EventEmitter {
	readonly #root: string;
	/** rel ('' for the run dir) → its watch. */
	readonly #watches = new Map<string, FSWatcher>();
	/** `rel\0name` of names seen in watched dirs whose children may be watched. */
	readonly #pending = new Set<string>();
	/** Dirs that had more names than MAX_PENDING holds: listed again at settle(). */
	readonly #relist = new Set<string>();
	/** Watched by their paths alone, not (yet) by a scan's word: at most MAX_WATCHES_BEFORE_SCAN, or MAX_DIRS_LISTED. */
	readonly #provisional = new Set<string>();
	/** What the last scan listed and found (follow()); null before the first. */
	#scope: WatchScope | null = null;
	#closed = false;
	/** Closed for a storm (MAX_EVENTS_PER_S): settle() watches again. */
	#paused = false;
	#burst = {start: 0, events: 0};

	constructor(root: string) {
		super();
		this.#root = root;
		// On the next tick, not now: the first watch may fail (EACCES on a run dir the user cannot read), and an 'error'
		// emitted before the caller had a chance to listen would be thrown, uncaught.
		setImmediate(
			() =>
				void this.#walk('').then(() => {
					if (!this.#closed) this.emit('ready');
				}),
		);
	}

	/**
	 * Watches `rel` and, below it, every directory the scan can look in. A storm that pauses the watcher mid-walk ends
	 * the walk: a watch added after the pause would be read by libuv event by event, heard by nobody (a 60 s storm on
	 * 1000 checkpoint dirs: 470k reads of the inotify fd in 15 s, a fifth of a CPU in the kernel).
	 */
	async #walk(rel: string): Promise<void> {
		if (this.#closed || this.#paused || this.#watches.has(rel) || this.#overBudget(rel) || !this.#add(rel)) return;
		const dir = path.join(this.#root, rel);
		for await (const child of entriesOf(dir)) {
			if (this.#closed || this.#paused) return;
			// Files first, and cheaply: a run dir of 100k files is mostly them.
			if (!child.isDirectory() && !child.isSymbolicLink()) continue;
			const childRel = rel === '' ? child.name : `${rel}/${child.name}`;
			if (!this.#wanted(childRel)) continue;
			if (child.isDirectory() || (child.isSymbolicLink() && (await isDir(path.join(dir, child.name)))))
				await this.#walk(childRel);
		}
	}

	/**
	 * Whether a change in `rel` can change the scan: one the last scan listed, a checkpoint it found or one level inside
	 * one; one it did not see (made since, or below such a one) by its path, until the next scan says.
	 */
	#wanted(rel: string): boolean {
		const scope = this.#scope;
		if (rel === '' || scope === null) return wantedDir(rel);
		if (scope.listed.has(rel) || scope.checkpoints.has(rel)) return true;
		const parent = parentOf(rel);
		if (scope.checkpoints.has(parent)) return true;
		// Deeper inside a checkpoint: its own files, not a place the scan looks.
		for (let up = parentOf(parent); up !== ''; up = parentOf(up)) if (scope.checkpoints.has(up)) return false;
		return (scope.listed.has(parent) || this.#watches.has(parent)) && wantedDir(rel);
	}

	/**
	 * After a scan: watches exactly what `search` says can change the next one, dropping the rest. True when it added
	 * a watch on a directory changed since `sinceMs` (the scan's start): what changed in it before its watch was heard
	 * by nobody, so the caller scans again.
	 */
	async follow(search: CheckpointSearch, sinceMs: number): Promise<boolean> {
		this.#scope = {listed: new Set(search.listed), checkpoints: new Set(search.checkpointDirs)};
		if (this.#closed || this.#paused) return false;
		let missed = false;
		for (const rel of [...search.listed, ...search.checkpointDirs]) {
			if (this.#watches.has(rel) || !(await isDir(path.join(this.#root, rel)))) continue;
			await this.#walk(rel);
			missed ||= await changedSince(path.join(this.#root, rel), sinceMs);
		}
		// Last: the walks above may have added what their paths allow and the scan did not list (a virtualenv).
		for (const rel of [...this.#watches.keys()]) if (!this.#keeps(rel)) this.#dropOne(rel);
		this.#provisional.clear();
		return missed;
	}

	/** Whether a watch stays after a scan: the scan listed it, found it as a checkpoint, or it is one level inside one. */
	#keeps(rel: string): boolean {
		const scope = this.#scope;
		if (rel === '' || scope === null) return true;
		return scope.listed.has(rel) || scope.checkpoints.has(rel) || scope.checkpoints.has(parentOf(rel));
	}

	#dropOne(rel: string): void {
		this.#watches.get(rel)?.close();
		this.#watches.delete(rel);
		this.#provisional.delete(rel);
	}

	/**
	 * Whether `rel` would be watched by its path alone (no scan listed it) past the budget for those: before the first
	 * scan, or in a listed directory of 100k subdirectories, the path allows more than any scan lists. What the budget
	 * leaves out, the next scan's follow() watches if it listed it.
	 */
	#overBudget(rel: string): boolean {
		if (this.#keeps(rel) && this.#scope !== null) return false;
		const budget = this.#scope === null ? MAX_WATCHES_BEFORE_SCAN : MAX_DIRS_LISTED;
		if (this.#provisional.size >= budget) return true;
		this.#provisional.add(rel);
		return false;
	}

	#add(rel: string): boolean {
		const dir = path.join(this.#root, rel);
		try {
			const watcher = watch(dir, {persistent: true}, (_event, name) => this.#heard(rel, name));
			watcher.on('error', error => this.#drop(rel, error));
			this.#watches.set(rel, watcher);
			return true;
		} catch (error) {
			// ENOENT: gone since it was listed. ENOSPC: out of inotify watches. Either way the rest are still watched.
			if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.emit('error', error);
			return false;
		}
	}

	#heard(rel: string, name: string | Buffer | null): void {
		if (this.#closed || this.#paused) return;
		if (this.#storming()) {
			this.#paused = true;
			this.#dropTree('');
			this.emit('all', 'change', this.#root);
			return;
		}
		const text = name === null ? null : String(name);
		const childRel = text === null ? null : rel === '' ? text : `${rel}/${text}`;
		// Only a name that could be a directory worth watching is kept; the rest only trigger the rescan.
		if (childRel === null) this.#relist.add(rel);
		else if (this.#wanted(childRel) || this.#watches.has(childRel)) {
			if (this.#pending.size < MAX_PENDING) this.#pending.add(`${rel}\0${text}`);
			else this.#relist.add(rel);
		}
		this.emit('all', 'change', path.join(this.#root, childRel ?? rel));
	}

	#storming(): boolean {
		const now = Date.now();
		if (now - this.#burst.start > 1000) this.#burst = {start: now, events: 0};
		this.#burst.events += 1;
		return this.#burst.events > MAX_EVENTS_PER_S;
	}

	/** Closed for an event storm: no event is heard, and no inotify watch is held, until settle(). */
	get paused(): boolean {
		return this.#paused;
	}

	/** Adds watches for directories made since the last call and drops those of directories gone. */
	async settle(): Promise<void> {
		if (this.#paused) {
			this.#paused = false;
			this.#pending.clear();
			this.#relist.clear();
			this.#burst = {start: Date.now(), events: 0};
			return this.#walk('');
		}
		const pending = [...this.#pending];
		const relist = [...this.#relist];
		this.#pending.clear();
		this.#relist.clear();
		for (const key of pending) {
			const [rel = '', name = ''] = key.split('\0');
			if (!relist.includes(rel)) await this.#check(rel === '' ? name : `${rel}/${name}`);
		}
		for (const rel of relist) {
			const dir = path.join(this.#root, rel);
			if (!(await isDir(dir))) {
				this.#dropTree(rel);
				continue;
			}
			const present = new Set<string>();
			for await (const child of entriesOf(dir)) present.add(rel === '' ? child.name : `${rel}/${child.name}`);
			for (const watched of [...this.#watches.keys()])
				if (path.posix.dirname(watched) === (rel === '' ? '.' : rel) && !present.has(watched)) this.#dropTree(watched);
			for (const childRel of present) if (this.#wanted(childRel)) await this.#check(childRel);
		}
	}

	/** `rel` watched if it is a directory now, dropped (with all below it) if it is not. */
	async #check(rel: string): Promise<void> {
		const file = path.join(this.#root, rel);
		const own = await lstat(file).catch(() => null);
		const directory = own !== null && (own.isDirectory() || (own.isSymbolicLink() && (await isDir(file))));
		if (directory && this.#wanted(rel)) await this.#walk(rel);
		else this.#dropTree(rel);
	}

	#drop(rel: string, error: unknown): void {
		// A watched directory deleted ends its watch with an error on some kernels: not worth reporting.
		if ((error as NodeJS.ErrnoException).code !== 'EPERM') this.emit('error', error);
		this.#dropTree(rel);
	}

	#dropTree(rel: string): void {
		for (const [watched, watcher] of this.#watches) {
			if (watched === rel || rel === '' || watched.startsWith(`${rel}/`)) {
				watcher.close();
				this.#watches.delete(watched);
				this.#provisional.delete(watched);
			}
		}
	}

	async close(): Promise<void> {
		this.#closed = true;
		for (const watcher of this.#watches.values()) watcher.close();
		this.#watches.clear();
		this.#provisional.clear();
		this.#pending.clear();
		this.#relist.clear();
	}
}

/** What the last scan says about the directories below the run dir (DirectoryWatcher.follow). */
interface WatchScope {
	readonly listed: ReadonlySet<string>;
	readonly checkpoints: ReadonlySet<string>;
}

const parentOf = (rel: string): string => {
	const slash = rel.lastIndexOf('/');
	return slash < 0 ? '' : rel.slice(0, slash);
};

/** Whether `dir` (its entries) changed at or after `sinceMs`, with a second's slack for coarse file-system clocks. */
const changedSince = (dir: string, sinceMs: number): Promise<boolean> =>
	stat(dir).then(
		s => Math.max(s.mtimeMs, s.ctimeMs) >= sinceMs - 1000,
		() => false,
	);

/**
 * A directory's entries, read a batch at a time (none when it cannot be read): listed whole, a run dir of 100k files
 * held the event loop 0.1–0.5 s on each walk, between two memory samples.
 */
async function* entriesOf(dir: string): AsyncGenerator<Dirent> {
	let handle: Dir;
	try {
		handle = await opendir(dir, {bufferSize: 1024});
	} catch {
		return;
	}
	try {
		for await (const entry of handle) yield entry;
	} catch {
		// Gone or unreadable while read: what was read stands.
	}
}

const isDir = (file: string): Promise<boolean> =>
	stat(file).then(
		s => s.isDirectory(),
		() => false,
	);
