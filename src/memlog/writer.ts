import {closeSync, constants, fstatSync, openSync, readSync, statSync, writeSync} from 'node:fs';
import {UsageError} from '../core/errors.js';
import {fileKind} from '../system/safe-read.js';
import type {LogRecord} from './record.js';

/**
 * Appends one JSON line per record to the memory log.
 *
 * - The file is opened once with O_APPEND and never truncated or rewritten: a log from an earlier
 *   run (or the seed tool) keeps its lines, and two writers cannot overwrite each other.
 * - Each record is ONE write(2) of a complete line, so a reader never sees half a record followed
 *   by more data. Linux may still cut that write short when SIGKILL arrives between two page copies
 *   (generic_perform_write checks fatal_signal_pending per page), so after `kill -9` the file can end
 *   in a prefix of the last record without its newline; every newline-terminated line is whole.
 * - If the file ends in such a torn line, a newline is written first so the next record starts on a
 *   line of its own instead of being glued to the fragment (readers skip the fragment and count it).
 *   A failed append (a full disk: the kernel took the head of the line, then ENOSPC) leaves the same torn
 *   tail, so the check runs again before the next append after any failure, not only at open.
 */
export class MemoryLogWriter {
	readonly path: string;
	#fd: number | null;
	/** The last append failed: the file may end in part of that record. */
	#maybeTorn = false;

	// biome-ignore lint/style/useConsistentMemberAccessibility: a constructor has no #private form; open() is the one way in.
	private constructor(path: string, fd: number) {
		this.path = path;
		this.#fd = fd;
	}

	/** Opens (creating if needed) the log; an unwritable path is a UsageError naming it. */
	static open(path: string): MemoryLogWriter {
		let fd: number;
		try {
			// O_NONBLOCK: a FIFO at the log's path must not hold the open (nor, below, the first write) forever.
			fd = openSync(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK, 0o644);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code ?? 'error';
			const reason = error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error);
			throw new UsageError(
				`cannot write the memory log ${path}: ${code} ${reason} (choose another --log-file, or --no-log)`,
			);
		}
		// A FIFO or socket cannot take appends without a reader: it fills, then blocks every write and the monitor
		// with it. A device stays allowed (`/dev/null`, `/dev/full` in the tests).
		const stats = fstatSync(fd);
		const kind = stats.isFIFO() || stats.isSocket() ? fileKind(stats) : null;
		if (kind !== null) {
			closeSync(fd);
			throw new UsageError(
				`cannot write the memory log ${path}: it is ${kind}, not a regular file (choose another --log-file, or --no-log)`,
			);
		}
		const writer = new MemoryLogWriter(path, fd);
		writer.#repairTornTail();
		return writer;
	}

	#repairTornTail(): void {
		const fd = this.#fd!;
		const size = fstatSync(fd).size;
		if (size === 0) return;
		const last = Buffer.alloc(1);
		readSync(fd, last, 0, 1, size - 1);
		if (last[0] !== 0x0a) writeSync(fd, '\n');
	}

	append(record: LogRecord): void {
		if (this.#fd === null) throw new Error(`memory log ${this.path} is closed`);
		const line = Buffer.from(`${JSON.stringify(record)}\n`);
		try {
			if (this.#maybeTorn) this.#repairTornTail();
			// A regular file takes the whole line in one write; the loop only matters on a nearly full
			// disk, where the kernel may accept part of it.
			let offset = 0;
			while (offset < line.length) offset += writeSync(this.#fd, line, offset);
			this.#maybeTorn = false;
		} catch (error) {
			this.#maybeTorn = true;
			throw error;
		}
	}

	/**
	 * The path no longer leads to the open file: it was deleted (ENOENT, as when its run dir was removed) or
	 * replaced by another (a different inode: the run dir deleted and made again). Appends would go to a file no
	 * one can read any more; the caller reopens.
	 */
	replaced(): boolean {
		if (this.#fd === null) return false;
		const open = fstatSync(this.#fd);
		try {
			const now = statSync(this.path);
			return now.ino !== open.ino || now.dev !== open.dev;
		} catch {
			return true;
		}
	}

	close(): void {
		if (this.#fd === null) return;
		closeSync(this.#fd);
		this.#fd = null;
	}
}
