import type {Snapshot} from '../core/types.js';
import type {LogRecord} from './record.js';
import {LogWindow} from './window.js';
import {MemoryLogWriter} from './writer.js';

// Snapshots in, one memory-log record per log interval out: the part of the memory log that the
// headless view and the TUI share. A failing append (a full disk) is reported once, not fatal:
// the monitor of a job that is filling the disk must keep running.

export interface RecorderOptions {
	/** Where records go; null with --no-log (records are still made, for the headless --json view). */
	readonly logPath: string | null;
	readonly logIntervalMs: number;
	readonly sampleIntervalMs: number;
	/** Each record, after it was appended (or not). */
	readonly onRecord?: (record: LogRecord, snapshot: Snapshot) => void;
	/** The log cannot be appended to (message), or can again (null). */
	readonly onLogTrouble?: (message: string | null) => void;
}

export class MemoryLogRecorder {
	readonly #options: RecorderOptions;
	readonly #window: LogWindow;
	readonly #writer: MemoryLogWriter | null;
	#failing = false;
	#last: Snapshot | null = null;

	/** Opens the log at once, so an unwritable path fails before sampling starts (a UsageError). */
	constructor(options: RecorderOptions) {
		this.#options = options;
		this.#window = new LogWindow(options.logIntervalMs, options.sampleIntervalMs);
		this.#writer = options.logPath ? MemoryLogWriter.open(options.logPath) : null;
	}

	/** The log file, or null when there is none. */
	get path(): string | null {
		return this.#writer?.path ?? null;
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
				if (this.#failing) this.#options.onLogTrouble?.(null);
				this.#failing = false;
			} catch (error) {
				if (!this.#failing) {
					this.#options.onLogTrouble?.(`cannot append to ${this.#writer.path}: ${(error as Error).message}; still monitoring`);
				}
				this.#failing = true;
			}
		}
		this.#options.onRecord?.(record, snapshot);
	}
}
