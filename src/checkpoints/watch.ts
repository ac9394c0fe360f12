// Watches a run dir and keeps its CheckpointIndex current: chokidar events, debounced into one rescan. Never prints.
// Polling (`poll`) is for network file systems (NFS, Lustre, GPFS), where inotify misses other nodes' writes.

import {stat} from 'node:fs/promises';
import {watch, type FSWatcher} from 'chokidar';
import type {Checkpoint, CheckpointIndex, ScanResult} from '../core/types.js';
import {diskSpace, type DiskSpace} from './disk.js';
import {buildIndex, lastSaveAt} from './retention.js';
import {WAITING_FOR_RUN_DIR} from '../format/checkpoints.js';
import {indexSignature as signature, isNew} from './index-change.js';
import {firstOther, settle, unattributed, type SaveExpectation, type SaveOutcome} from './save-attribution.js';

export type {SaveExpectation, SaveOutcome} from './save-attribution.js';

export type ScanFunction = (runDir: string) => Promise<ScanResult>;
export type IndexListener = (index: CheckpointIndex) => void;

export interface CheckpointWatcherOptions {
	readonly runDir: string;
	/** --keep N; null: the job's metadata decides. */
	readonly keep: number | null;
	/** Default: scanRunDir from ./scan.js. */
	readonly scan?: ScanFunction;
	/** Default: diskSpace from ./disk.js. */
	readonly disk?: (dir: string) => Promise<DiskSpace | null>;
	/** Poll with stat() every intervalMs instead of inotify; null/undefined: inotify. */
	readonly poll?: {readonly intervalMs: number} | null;
	/** A burst of events becomes one rescan this long after its first event. Default 200. */
	readonly debounceMs?: number;
	/** Directory levels below runDir that are watched. Default 4. */
	readonly depth?: number;
	readonly now?: () => number;
	/** Default: chokidar's watch. Tests wrap it to reach the file watcher (to make it fail, say). */
	readonly watch?: typeof watch;
}

const isDirectory = (dir: string): Promise<boolean> =>
	stat(dir).then(
		s => s.isDirectory(),
		() => false,
	);

const defaultScan: ScanFunction = async runDir => {
	const {scanRunDir} = await import('./scan.js');
	return scanRunDir(runDir);
};

export class CheckpointWatcher {
	readonly runDir: string;
	readonly #options: CheckpointWatcherOptions;
	readonly #scan: ScanFunction;
	readonly #now: () => number;
	readonly #debounceMs: number;
	#index: CheckpointIndex | null = null;
	#lastSignature: string | null = null;
	readonly #listeners = new Set<IndexListener>();
	/** Told after every rescan, changed or not (awaitNewCheckpoint). */
	readonly #scanHooks = new Set<(index: CheckpointIndex | null) => void>();
	#watcher: FSWatcher | null = null;
	#starting: Promise<void> | null = null;
	#stopped = false;
	#timer: NodeJS.Timeout | null = null;
	#lookTimer: NodeJS.Timeout | null = null;
	#running: Promise<CheckpointIndex> | null = null;
	#queued: Promise<CheckpointIndex> | null = null;
	/** The last error of a rescan or of the file watcher; null after a successful rescan. */
	lastError: unknown = null;

	constructor(options: CheckpointWatcherOptions) {
		this.#options = options;
		this.runDir = options.runDir;
		this.#scan = options.scan ?? defaultScan;
		this.#now = options.now ?? Date.now;
		this.#debounceMs = options.debounceMs ?? 200;
	}

	/**
	 * Starts the file watcher, then scans; resolves once both are done (a missing run dir: after the scan, and it is
	 * watched once it appears). Calling it again returns the same promise.
	 */
	start(): Promise<void> {
		this.#starting ??= this.#doStart();
		return this.#starting;
	}

	async #doStart(): Promise<void> {
		if (await isDirectory(this.runDir)) return this.#attach();
		await this.rescan().catch(() => undefined); // lastError has it
		// Started before the job made its run dir (`torchrun … & traintop runs/x --pid $!`): an empty index that
		// says so, rather than none (which views read as "no RUN_DIR given").
		this.#index ??= buildIndex(
			{runDir: this.runDir, layouts: [], checkpoints: [], groups: [], warnings: [WAITING_FOR_RUN_DIR]},
			{keep: this.#options.keep, now: this.#now(), disk: null},
		);
		// chokidar does not notice a missing path appear: look for it until it does, then watch it.
		const every = this.#options.poll?.intervalMs ?? 1000;
		const look = async (): Promise<void> => {
			this.#lookTimer = null;
			if (this.#stopped) return;
			if (await isDirectory(this.runDir)) return this.#attach();
			this.#lookTimer = setTimeout(() => void look(), every);
		};
		this.#lookTimer = setTimeout(() => void look(), every);
	}

	/** A file watcher is attached to the run dir (false before start, after stop, while the dir is missing). */
	get watching(): boolean {
		return this.#watcher !== null;
	}

	/** Watch first, then scan: nothing that changes after the scan can go unnoticed. */
	async #attach(): Promise<void> {
		if (this.#stopped) return;
		const poll = this.#options.poll ?? null;
		const watcher = (this.#options.watch ?? watch)(this.runDir, {
			persistent: true,
			ignoreInitial: true,
			depth: this.#options.depth ?? 4,
			usePolling: poll !== null,
			...(poll === null ? {} : {interval: poll.intervalMs, binaryInterval: poll.intervalMs}),
			// awaitWriteFinish stays off: checkpoints are renamed into place, and waiting would only add latency.
			atomic: false,
			ignorePermissionErrors: true,
		});
		this.#watcher = watcher;
		watcher.on('all', () => this.#schedule());
		watcher.on('error', error => {
			this.lastError = error; // an unreadable path, a vanished directory: keep watching the rest
		});
		await new Promise<void>(resolve => watcher.once('ready', () => resolve()));
		await this.rescan().catch(() => undefined); // lastError has it
		// A poller takes its baseline stat() shortly after 'ready': a change before that shows in no event. One more
		// rescan after the first poll catches it.
		if (poll !== null) this.#schedule(poll.intervalMs + this.#debounceMs);
	}

	/** One rescan debounceMs after the first event of a burst; events during the wait join it. */
	#schedule(delayMs = this.#debounceMs): void {
		if (this.#stopped || this.#timer !== null) return;
		this.#timer = setTimeout(() => {
			this.#timer = null;
			if (!this.#stopped) this.rescan().catch(() => undefined);
		}, delayMs);
	}

	/**
	 * The index as of the last rescan, with the last save's age and overdue flag as of now: a
	 * job that stopped saving triggers no rescan. A new object only when the age (in whole
	 * seconds) or the flag changed.
	 */
	getIndex(): CheckpointIndex | null {
		const index = this.#index;
		if (!index?.lastSave) return index;
		const fresh = lastSaveAt(index.lastSave, this.#now());
		if (fresh.overdue === index.lastSave.overdue && Math.floor(fresh.ageS) === Math.floor(index.lastSave.ageS))
			return index;
		this.#index = {...index, lastSave: fresh};
		return this.#index;
	}

	/** `listener` is called after each rescan that changed the index. Returns the unsubscribe function. */
	subscribe(listener: IndexListener): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	/**
	 * Scans now. A call while a scan is running shares one follow-up scan that starts when the running one ends (so
	 * its result reflects the disk after the call), however many calls arrive meanwhile.
	 */
	rescan(): Promise<CheckpointIndex> {
		if (this.#running === null) {
			this.#running = this.#scanOnce().finally(() => {
				this.#running = null;
			});
			return this.#running;
		}
		this.#queued ??= this.#running
			.catch(() => undefined)
			.then(() => {
				this.#queued = null;
				return this.rescan();
			});
		return this.#queued;
	}

	async #scanOnce(): Promise<CheckpointIndex> {
		const diskOf = this.#options.disk ?? diskSpace;
		const [scan, disk] = await Promise.all([this.#scan(this.runDir), diskOf(this.runDir)]).catch((error: unknown) => {
			this.lastError = error;
			throw error;
		});
		const index = buildIndex(scan, {keep: this.#options.keep, now: this.#now(), disk});
		this.lastError = null;
		this.#index = index;
		const sig = signature(index);
		const changed = sig !== this.#lastSignature;
		this.#lastSignature = sig;
		for (const hook of [...this.#scanHooks]) hook(index);
		for (const listener of changed ? [...this.#listeners] : []) {
			try {
				listener(index);
			} catch {
				// a listener's bug must not stop the watcher
			}
		}
		return index;
	}

	/**
	 * The first complete checkpoint, not complete in the index when called, whose time is at least sinceMs −
	 * TIME_SLACK_MS; null after timeoutMs or on stop(). A checkpoint partial at the call that completes later counts.
	 */
	awaitNewCheckpoint(sinceMs: number, timeoutMs: number): Promise<Checkpoint | null> {
		return this.#awaitNew<Checkpoint | null>(
			sinceMs,
			timeoutMs,
			fresh => fresh[0],
			() => null,
		);
	}

	/**
	 * The save asked for (SIGUSR1: manual, SIGTERM: emergency), told apart from one that merely came first. New as for
	 * awaitNewCheckpoint. Resolves at once with a new checkpoint of the expected kind (attributed), or with one whose
	 * layout records no kind (not attributed, with a note: it may be the one). A new one of another kind (a periodic
	 * save that landed first) is remembered while the wait goes on; at timeoutMs, or on stop(), the outcome is that
	 * one, with a note naming its kind, or nothing.
	 */
	awaitSave(sinceMs: number, timeoutMs: number, expect: SaveExpectation): Promise<SaveOutcome> {
		let other: Checkpoint | null = null;
		return this.#awaitNew<SaveOutcome>(
			sinceMs,
			timeoutMs,
			fresh => {
				const outcome = settle(fresh, expect);
				if (!outcome) other ??= firstOther(fresh, expect);
				return outcome ?? undefined;
			},
			timedOut => unattributed(other, expect, timedOut ? timeoutMs : null),
		);
	}

	/**
	 * Waits on each rescan for what `decide` makes of the checkpoints new since the call (undefined: keep waiting);
	 * `end` says what it comes to at the timeout (true) or on stop() (false).
	 */
	#awaitNew<T>(
		sinceMs: number,
		timeoutMs: number,
		decide: (fresh: readonly Checkpoint[]) => T | undefined,
		end: (timedOut: boolean) => T,
	): Promise<T> {
		const before = this.#completePaths();
		return new Promise(resolve => {
			const finish = (value: T): void => {
				clearTimeout(timer);
				this.#scanHooks.delete(hook);
				resolve(value);
			};
			const hook = (index: CheckpointIndex | null): void => {
				if (index === null) {
					finish(end(false));
					return;
				}
				const value = decide(index.checkpoints.filter(c => isNew(c, before, sinceMs)));
				if (value !== undefined) finish(value);
			};
			const timer = setTimeout(() => finish(end(true)), timeoutMs);
			if (this.#stopped) return finish(end(false));
			this.#scanHooks.add(hook);
		});
	}

	/** Paths of the complete checkpoints in the index now: what the awaits measure "new" against. */
	#completePaths(): Set<string> {
		return new Set((this.#index?.checkpoints ?? []).filter(c => c.status === 'complete').map(c => c.path));
	}

	/**
	 * Closes the file watcher, cancels a pending rescan, resolves pending awaitNewCheckpoint calls with null and awaitSave
	 * calls with what they saw so far. Idempotent.
	 */
	async stop(): Promise<void> {
		this.#stopped = true;
		if (this.#timer !== null) clearTimeout(this.#timer);
		if (this.#lookTimer !== null) clearTimeout(this.#lookTimer);
		this.#timer = this.#lookTimer = null;
		for (const hook of [...this.#scanHooks]) hook(null);
		await this.#starting?.catch(() => undefined);
		const watcher = this.#watcher;
		this.#watcher = null;
		await watcher?.close();
	}
}
