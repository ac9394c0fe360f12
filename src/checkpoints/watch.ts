// Watches a run dir and keeps its CheckpointIndex current: file events (watch-options.ts), debounced into one rescan.
// Never prints. Polling (`poll`) is for network file systems (NFS, Lustre, GPFS): inotify misses other nodes' writes.

import {errorMessage} from '../core/errors.js';
import type {Checkpoint, CheckpointIndex, SentSignal} from '../core/types.js';
import {diskSpace} from './disk.js';
import {buildIndex, lastSaveAt} from './retention.js';
import {IndexListeners} from './index-listeners.js';
import {isDirectory, RunDirPresence, unreadable} from './run-dir-presence.js';
import {scanningIndex, unreadableIndex, waitingIndex} from './placeholder-index.js';
import {cpuMs, restAfter} from './rescan-spacing.js';
import {SerialRun} from './serial-run.js';
import {
	openRunDirWatcher,
	ownScan,
	type CheckpointWatcherOptions,
	type IndexListener,
	type OwnScan,
	type RunDirWatcher,
	type ScanFunction,
} from './watch-options.js';
import type {SaveExpectation, SaveOutcome} from './save-attribution.js';
import {SaveWaits} from './save-waits.js';
import {SentSignals} from './sent-signals.js';
import {FirstScanWrites} from './first-scan-writes.js';
import {SaveHistory} from './save-history.js';
import {suspendedBySignal} from './seen-judgements.js';

export type {SaveExpectation, SaveOutcome} from './save-attribution.js';
export type {CheckpointWatcherOptions, IndexListener, ScanFunction} from './watch-options.js';

export class CheckpointWatcher {
	readonly runDir: string;
	readonly #options: CheckpointWatcherOptions;
	readonly #scan: ScanFunction;
	/** The scan's own thread, when not given a scan: ended on stop(). */
	readonly #ownScan: OwnScan | null;
	readonly #now: () => number;
	readonly #debounceMs: number;
	#index: CheckpointIndex | null = null;
	readonly #listeners = new IndexListeners();
	/** The awaitNewCheckpoint and awaitSave calls waiting on the rescans. */
	readonly #waits = new SaveWaits(() => this.#index);
	#watcher: RunDirWatcher | null = null;
	#starting: Promise<void> | null = null;
	#stopped = false;
	#timer: NodeJS.Timeout | null = null;
	readonly #presence: RunDirPresence;
	/** One scan at a time (rescan). */
	readonly #scans = new SerialRun(() => this.#scanOnce());
	/** When the last scan ended, how long it took and the CPU it used (ms): what the next event-driven one waits. */
	#lastScan = {end: 0, took: 0, cpu: 0};
	/** The run dir found unreadable, or readable again after that (CheckpointIndex.runDirAccess). */
	#access: CheckpointIndex['runDirAccess'] | null = null;
	readonly #firstScanWrites = new FirstScanWrites();
	/** Signals traintop sent to the run dir's job, and when each complete checkpoint was first seen. */
	readonly #sent = new SentSignals();
	/** Every save seen in the run dir and every deletion, across rescans: the cadence and learned retention read it. */
	#history = new SaveHistory();
	/** The last error of a rescan or of the file watcher; null after a successful rescan. */
	lastError: unknown = null;

	constructor(options: CheckpointWatcherOptions) {
		this.#options = options;
		this.runDir = options.runDir;
		this.#ownScan = options.scan ? null : ownScan();
		this.#scan = options.scan ?? this.#ownScan!.scan;
		this.#now = options.now ?? Date.now;
		this.#debounceMs = options.debounceMs ?? 200;
		this.#presence = new RunDirPresence(this.runDir, this.#now);
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
		this.#index = scanningIndex(this.runDir, this.#options.keep, this.#now());
		if (await isDirectory(this.runDir)) return this.#attach();
		await this.rescan().catch(() => undefined); // lastError has it
		if (this.#index?.scanning) this.#index = this.#waitingIndex();
		this.#waitForDir();
	}

	#waitingIndex(): CheckpointIndex {
		return waitingIndex(this.runDir, this.#options.keep, this.#now());
	}

	#waitForDir(): void {
		this.#presence.waitFor(this.#options.poll?.intervalMs ?? 1000, () => void this.#attach());
	}

	/** A file watcher is attached to the run dir (false before start, after stop, while the dir is missing). */
	get watching(): boolean {
		return this.#watcher !== null;
	}

	/** Watch first, then scan: nothing that changes after the scan can go unnoticed. */
	async #attach(): Promise<void> {
		if (this.#stopped) return;
		const denied = await unreadable(this.runDir);
		if (denied !== null) return this.#waitUntilReadable(denied);
		await this.#presence.attaching();
		this.#presence.follow(this.#options.identityCheckMs ?? 1000, present => void this.#reattach(present));
		const poll = this.#options.poll ?? null;
		const watcher = (this.#options.watch ?? openRunDirWatcher)(this.runDir, poll);
		this.#watcher = watcher;
		watcher.on('all', (_event: string, file: unknown) => {
			this.#firstScanWrites.heard(file);
			this.#schedule();
		});
		watcher.on('error', error => {
			this.lastError = error; // an unreadable path, a vanished directory: keep watching the rest
		});
		await new Promise<void>(resolve => watcher.once('ready', () => resolve()));
		await this.rescan().catch(() => undefined); // lastError has it
		// The first scan counts every file (nothing is kept yet): its cost says nothing of the rescans' after it.
		this.#lastScan = {end: 0, took: 0, cpu: 0};
		// A poller takes its baseline stat() shortly after 'ready': a change before that shows in no event. One more
		// rescan after the first poll catches it.
		if (poll !== null) this.#schedule(poll.intervalMs + this.#debounceMs);
	}

	/**
	 * The run dir is there but the user cannot list it (EACCES: traintop run as another user than the job's). Said
	 * (the index's warning, an event), and looked at again every second: it is watched once it can be read.
	 */
	#waitUntilReadable(why: string): void {
		const text = `run dir ${this.runDir} cannot be read (${why}): its checkpoints are not watched until it can be`;
		this.#access = {at: this.#now(), text, readable: false};
		this.lastError = new Error(text);
		this.#publish(unreadableIndex(this.runDir, this.#options.keep, this.#now(), text));
		this.#presence.waitFor(
			this.#options.poll?.intervalMs ?? 1000,
			() => {
				this.#access = {at: this.#now(), text: `run dir ${this.runDir} can be read now: watching it`, readable: true};
				void this.#attach();
			},
			true,
		);
	}

	/** The run dir was deleted (present: false) or deleted and made again: watch the new one, or wait for it. */
	async #reattach(present: boolean): Promise<void> {
		const old = this.#watcher;
		this.#watcher = null;
		await old?.close();
		// Another directory: its saves are not the old one's, and the old ones vanishing was no rotation.
		this.#history = new SaveHistory();
		if (present) return this.#attach();
		this.#publish(this.#waitingIndex());
		this.#waitForDir();
	}

	/**
	 * One rescan debounceMs after a burst's first event; events during the wait join it. During an event storm on a
	 * large run dir the rescans are spaced by what they cost (restAfter): the scanner keeps the disk busy half the time
	 * and a CPU a tenth of the time at most.
	 */
	#schedule(delayMs = this.#debounceMs): void {
		if (this.#stopped || this.#timer !== null) return;
		this.#timer = setTimeout(() => {
			this.#timer = null;
			if (this.#stopped) return;
			// Decided when the timer fires: events during a scan wait for it to end, then for its rest.
			const running = this.#scans.running;
			if (running !== null) return void running.catch(() => undefined).then(() => this.#schedule());
			const rest = this.#lastScan.end + restAfter(this.#lastScan) - this.#now();
			if (rest > 0) return this.#schedule(rest);
			void this.rescan().catch(() => undefined);
		}, delayMs);
	}

	/**
	 * The index as of the last rescan, with the last save's age and overdue flag as of now: a job that stopped saving
	 * triggers no rescan. A new object only when the age (in whole seconds) or the flag changed. An emergency signal
	 * noted since the last rescan suspends OVERDUE at once (the cadence judged it before the signal).
	 */
	getIndex(): CheckpointIndex | null {
		this.#index = suspendedBySignal(this.#index, this.#sent.list);
		const index = this.#index;
		if (!index?.lastSave) return index;
		const fresh = lastSaveAt(index.lastSave, this.#now());
		if (fresh.overdue === index.lastSave.overdue && Math.floor(fresh.ageS) === Math.floor(index.lastSave.ageS))
			return index;
		this.#index = {...index, lastSave: fresh};
		return this.#index;
	}

	/**
	 * traintop sent `sent` to the run dir's job: a save right after it is that save, and a job it stops is not late.
	 * Kept for the index's judgements from the next rescan on; an emergency one suspends OVERDUE at once (getIndex).
	 */
	noteSignal(sent: SentSignal): void {
		this.#sent.note(sent);
		// A save already scanned before the note (a fast job, a late note) gets its kind at the next scan: one now.
		if (this.#starting !== null) this.#schedule();
	}

	/** The signals noted, oldest first. */
	get signalsSent(): readonly SentSignal[] {
		return this.#sent.list;
	}

	/** `listener` is called after each rescan that changed the index. Returns the unsubscribe function. */
	subscribe(listener: IndexListener): () => void {
		return this.#listeners.subscribe(listener);
	}

	/**
	 * Scans now. A call while a scan is running shares one follow-up scan that starts when the running one ends (so
	 * its result reflects the disk after the call), however many calls arrive meanwhile.
	 */
	rescan(): Promise<CheckpointIndex> {
		return this.#scans.run();
	}

	async #scanOnce(): Promise<CheckpointIndex> {
		const diskOf = this.#options.disk ?? diskSpace;
		// startedAt on the index's clock (first-seen times); startedWall on the file system's (mtimes of new directories).
		const [began, cpuBefore, startedAt, startedWall] = [performance.now(), cpuMs(), this.#now(), Date.now()];
		// The watcher catches up first (new directories watched; after a storm paused it, a walk): part of the cost.
		await this.#watcher?.settle?.().catch(() => undefined);
		const [scan, disk] = await Promise.all([this.#scan(this.runDir), diskOf(this.runDir)])
			.catch((error: unknown) => {
				this.lastError = error;
				// The first scan failed: the stand-in says why (and stays one: what a later scan finds is not new).
				if (this.#index?.scanning) this.#index = {...this.#index, warnings: [`scan failed: ${errorMessage(error)}`]};
				throw error;
			})
			.finally(() => {
				this.#lastScan = {end: this.#now(), took: performance.now() - began, cpu: cpuMs() - cpuBefore};
			});
		this.lastError = null;
		// Directories the scan found (RUN/ckpts made since the start) are watched now; one that changed before its watch
		// was there is scanned again.
		if (scan.search && (await this.#watcher?.follow?.(scan.search, startedWall).catch(() => false))) this.#schedule();
		const priorCadence = this.#index?.cadence ?? null;
		const built = buildIndex(scan, {
			keep: this.#options.keep,
			now: this.#now(),
			disk,
			signals: this.#sent.list,
			priorCadence,
			history: this.#history,
		});
		this.#sent.scanned(scan.checkpoints, built.checkpoints, startedAt, priorCadence);
		if (!this.#index?.scanning) return this.#publish(built);
		const written = this.#firstScanWrites.take(this.runDir, built.checkpoints);
		return this.#publish(written.length === 0 ? built : {...built, writtenWhileScanning: written});
	}

	/** Makes `built` the index (with the run dir's replacement, if any) and tells the hooks and listeners. */
	#publish(built: CheckpointIndex): CheckpointIndex {
		const replaced = this.#presence.replaced;
		const access = this.#access === null ? {} : {runDirAccess: this.#access};
		const index = replaced === null ? {...built, ...access} : {...built, runDirReplaced: replaced, ...access};
		this.#index = index;
		this.#waits.scanned(index);
		this.#listeners.changed(index);
		return index;
	}

	/** The first new complete checkpoint since `sinceMs`, or null after `timeoutMs` or on stop() (save-waits.ts). */
	awaitNewCheckpoint(sinceMs: number, timeoutMs: number): Promise<Checkpoint | null> {
		return this.#waits.newCheckpoint(sinceMs, timeoutMs);
	}

	/** The save asked for, told apart from one that merely came first (save-waits.ts). */
	awaitSave(sinceMs: number, timeoutMs: number, expect: SaveExpectation): Promise<SaveOutcome> {
		return this.#waits.save(sinceMs, timeoutMs, expect);
	}

	/**
	 * Closes the file watcher, cancels a pending rescan, resolves pending awaitNewCheckpoint calls with null and awaitSave
	 * calls with what they saw so far. Idempotent.
	 */
	async stop(): Promise<void> {
		this.#stopped = true;
		clearTimeout(this.#timer ?? undefined);
		this.#presence.stop();
		this.#waits.stop();
		// Before waiting for the start: a first scan still running on its thread ends now, not seconds later.
		await this.#ownScan?.close();
		await this.#starting?.catch(() => undefined);
		const watcher = this.#watcher;
		this.#watcher = null;
		await watcher?.close();
	}
}
