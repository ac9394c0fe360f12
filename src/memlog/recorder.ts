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
}

export type RecordListener = (record: LogRecord, snapshot: Snapshot) => void;

export class MemoryLogRecorder {
	readonly #window: LogWindow;
	readonly #writer: MemoryLogWriter | null;
	readonly #recordListeners = new Set<RecordListener>();
	#last: Snapshot | null = null;
	/** Why the log cannot be appended to right now (a full disk), or null while it can. */
	readonly trouble = new ValueStore<string | null>(null);

	/** Opens the log at once, so an unwritable path fails before sampling starts (a UsageError). */
	constructor(options: RecorderOptions) {
		this.#window = new LogWindow(options.logIntervalMs, options.sampleIntervalMs);
		this.#writer = options.logPath ? MemoryLogWriter.open(options.logPath) : null;
	}

	/** The log file, or null when there is none. */
	get path(): string | null {
		return this.#writer?.path ?? null;
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

	#emit(record: LogRecord, snapshot: Snapshot): void {
		if (this.#writer) {
			try {
				this.#writer.append(record);
				this.trouble.set(null);
			} catch (error) {
				// Said once per failing spell, not once per record: the store tells only of changes.
				if (this.trouble.get() === null) {
					this.trouble.set(`cannot append to ${this.#writer.path}: ${(error as Error).message}; still monitoring`);
				}
			}
		}
		for (const listener of this.#recordListeners) listener(record, snapshot);
	}
}
