// The inotify side of the run-dir watcher: one fs.watch per *directory* the checkpoint scan can look in, never one per
// file, and nothing re-listed per event. chokidar's inotify mode put a watch on every file and, on each event, listed
// the whole directory again and stat()ed every entry: 100k files cost 543 MB idle and a rename storm 100 % CPU and
// 2 GB (issue 17). A directory watch still reports every name created, written, renamed or deleted in it, which is
// all a rescan needs to be triggered; the names are kept (a capped set) only to add watches for new directories.

import {EventEmitter} from 'node:events';
import {type Dir, type Dirent, type FSWatcher, watch} from 'node:fs';
import {lstat, opendir, stat} from 'node:fs/promises';
import path from 'node:path';
import {wantedDir} from './scan-dirs.js';

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
		if (this.#closed || this.#paused || this.#watches.has(rel) || !this.#add(rel)) return;
		const dir = path.join(this.#root, rel);
		for await (const child of entriesOf(dir)) {
			if (this.#closed || this.#paused) return;
			// Files first, and cheaply: a run dir of 100k files is mostly them.
			if (!child.isDirectory() && !child.isSymbolicLink()) continue;
			const childRel = rel === '' ? child.name : `${rel}/${child.name}`;
			if (!wantedDir(childRel)) continue;
			if (child.isDirectory() || (child.isSymbolicLink() && (await isDir(path.join(dir, child.name)))))
				await this.#walk(childRel);
		}
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
		else if (wantedDir(childRel) || this.#watches.has(childRel)) {
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
			for (const childRel of present) if (wantedDir(childRel)) await this.#check(childRel);
		}
	}

	/** `rel` watched if it is a directory now, dropped (with all below it) if it is not. */
	async #check(rel: string): Promise<void> {
		const file = path.join(this.#root, rel);
		const own = await lstat(file).catch(() => null);
		const directory = own !== null && (own.isDirectory() || (own.isSymbolicLink() && (await isDir(file))));
		if (directory && wantedDir(rel)) await this.#walk(rel);
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
			}
		}
	}

	async close(): Promise<void> {
		this.#closed = true;
		for (const watcher of this.#watches.values()) watcher.close();
		this.#watches.clear();
		this.#pending.clear();
		this.#relist.clear();
	}
}

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
