import {existsSync} from 'node:fs';
import path from 'node:path';
import {ValueStore} from '../core/value-store.js';
import type {Snapshot} from '../core/types.js';
import type {LogRecord} from './record.js';
import {LogWindow} from './window.js';
import {MemoryLogWriter} from './writer.js';

// Snapshots in, one memory-log record per log interval out: the part of the memory log that the
// headless view and the TUI share. A failing append (a full disk) is observable state, not fatal:
// the monitor of a job that is filling the disk must keep running, and say so.

export interface RecorderOptions {
	/** Where records go; null with --no-log (records are still made, for the headless --json view). */
	readonly logPath: string | null;
	readonly logIntervalMs: number;
	readonly sampleIntervalMs: number;
	/**
	 * The global GPU threshold the Monitor judges by (`--gpu-threshold`): a GPU judged by its own line instead
	 * (`--gpu-thresholds`, a cluster.yaml reserve factor) gets that line in its log entry.
	 */
	readonly gpuThreshold: number;
}

export type RecordListener = (record: LogRecord, snapshot: Snapshot) => void;

/**
 * Records held while the log cannot be written (its directory, a RUN_DIR not made yet, does not exist; the disk is
 * full): 1000 × 30 s is over 8 hours, and 1000 records take a few MB of memory at most.
 */
const HELD_RECORDS = 1000;

export class MemoryLogRecorder {
	readonly #window: LogWindow;
	#writer: MemoryLogWriter | null;
	/** The log's path while its directory does not exist yet; records wait in #held until it does. */
	#waitingFor: string | null = null;
	/** Records not written yet: the log's directory does not exist yet, or appends fail (a full disk). */
	readonly #held: LogRecord[] = [];
	/** Records dropped from #held while it was full, said once the log can be written again. */
	#dropped: {count: number; first: string | null; last: string | null} = {count: 0, first: null, last: null};
	readonly #recordListeners = new Set<RecordListener>();
	#last: Snapshot | null = null;
	/** Why the log cannot be appended to right now (a full disk), or null while it can. */
	readonly trouble = new ValueStore<string | null>(null);

	/**
	 * Opens the log at once, so an unwritable path fails before sampling starts (a UsageError). A log whose
	 * directory does not exist yet (RUN_DIR/traintop-memory.jsonl before the job made RUN_DIR) is opened when
	 * it appears; its records are held until then.
	 */
	constructor(options: RecorderOptions) {
		this.#window = new LogWindow(options.logIntervalMs, options.sampleIntervalMs, options.gpuThreshold);
		const {logPath} = options;
		if (logPath && !existsSync(path.dirname(logPath))) {
			this.#writer = null;
			this.#waitingFor = logPath;
		} else {
			this.#writer = logPath ? MemoryLogWriter.open(logPath) : null;
		}
	}

	/** The log file, or null when there is none. */
	get path(): string | null {
		return this.#writer?.path ?? this.#waitingFor;
	}

	/** Each record, after it was appended (or not). */
	onRecord(listener: RecordListener): () => void {
		this.#recordListeners.add(listener);
		return () => this.#recordListeners.delete(listener);
	}

	add(snapshot: Snapshot): void {
		this.#last = snapshot;
		const record = this.#window.add(snapshot);
		if (record) this.#emit(record, snapshot);
	}

	/** Writes what the current window holds as a final record, and closes the log. */
	close(): void {
		const final = this.#window.flush();
		if (final && this.#last) this.#emit(final, this.#last);
		this.#writer?.close();
	}

	/** Opens a waiting log once its directory exists; true when the log can be written now. */
	#ready(): boolean {
		if (this.#waitingFor === null) return this.#writer !== null;
		if (!existsSync(path.dirname(this.#waitingFor))) return false;
		try {
			this.#writer = MemoryLogWriter.open(this.#waitingFor);
		} catch (error) {
			this.trouble.set(`${(error as Error).message}; still monitoring`);
			return false;
		}
		this.#waitingFor = null;
		return true;
	}

	/**
	 * The log's path no longer leads to the open file (its run dir deleted, or deleted and made again): appends would
	 * go to a file no one can read. Closes it and opens the path anew (or waits for its directory, as at start).
	 * One fstat and one stat per record.
	 */
	#followPath(): void {
		const writer = this.#writer;
		if (writer === null || !writer.replaced()) return;
		writer.close();
		this.#writer = null;
		this.#waitingFor = writer.path;
		if (existsSync(path.dirname(writer.path)))
			this.trouble.set(
				`memory log ${writer.path} was deleted or replaced (its run dir made again?): writing a new one there`,
			);
	}

	#emit(record: LogRecord, snapshot: Snapshot): void {
		this.#followPath();
		if (this.#waitingFor !== null && !this.#ready()) {
			this.#hold(record);
			if (this.trouble.get() === null)
				this.trouble.set(
					`${path.dirname(this.#waitingFor)} does not exist yet: the memory log starts there once it does`,
				);
		} else if (this.#writer) {
			this.#held.push(record);
			if (!this.#writeHeld(this.#writer)) this.#trimHeld();
		}
		for (const listener of this.#recordListeners) listener(record, snapshot);
	}

	/** Keeps a record until it is written, the newest HELD_RECORDS at most; the oldest beyond that are dropped. */
	#hold(record: LogRecord): void {
		this.#held.push(record);
		this.#trimHeld();
	}

	#trimHeld(): void {
		const over = this.#held.length - HELD_RECORDS;
		if (over <= 0) return;
		for (const old of this.#held.splice(0, over)) {
			this.#dropped.count++;
			this.#dropped.first ??= old.timestamp;
			this.#dropped.last = old.timestamp;
		}
	}

	/**
	 * Writes the held records oldest first, each removed only once it is written (false when one failed): a disk that fills up (or is still
	 * full) keeps the rest for the next record's turn, so a full spell costs no record while it lasts under
	 * HELD_RECORDS log intervals (the one that hit the full disk is finished where the kernel stopped taking it).
	 */
	#writeHeld(writer: MemoryLogWriter): boolean {
		try {
			while (this.#held.length > 0) {
				writer.append(this.#held[0]!);
				this.#held.shift();
			}
		} catch (error) {
			// Said once per failing spell, not once per record: the store tells only of changes.
			if (this.trouble.get() === null) {
				this.trouble.set(
					`cannot append to ${writer.path}: ${(error as Error).message}; still monitoring, records are kept (up to ${HELD_RECORDS}) and written when it can be appended to again`,
				);
			}
			return false;
		}
		const {count, first, last} = this.#dropped;
		this.trouble.set(
			count === 0
				? null
				: `memory log ${writer.path}: ${count} records from ${first} to ${last} were dropped (the log could not be written for longer than ${HELD_RECORDS} records); the rest were written`,
		);
		this.#dropped = {count: 0, first: null, last: null};
		return true;
	}
}
