import {closeSync, constants, fstatSync, openSync, readSync, statSync, writeSync} from 'node:fs';
import {dirname} from 'node:path';
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
 *   tail: the same record appended again goes on from where the kernel stopped (nothing else was appended since),
 *   else the check runs again before the next append after any failure, not only at open.
 */
/** The sticky bit (S_ISVTX): in such a directory only a file's owner may rename or delete it. */
const STICKY = 0o1000;

/** Why the log's directory is unsafe to write in (writable by others, no sticky bit), or null. */
function unsafeDirectory(dir: string): string | null {
	let mode: number;
	try {
		mode = statSync(dir).mode;
	} catch {
		return null; // open() says what is wrong with a directory that is not there
	}
	const othersWrite = (mode & 0o022) !== 0;
	if (!othersWrite || (mode & STICKY) !== 0) return null;
	const who = (mode & 0o002) !== 0 ? 'world' : 'group';
	return `its directory ${dir} is ${who}-writable without the sticky bit (mode ${(mode & 0o7777).toString(8)}), so anyone who can write there could swap the log for a link to another file`;
}

export class MemoryLogWriter {
	readonly path: string;
	#fd: number | null;
	/** The last append failed: the file may end in part of that record. */
	#maybeTorn = false;
	/** The line a failed append left cut, how much of it the file took, and the file's size just after. */
	#torn: {readonly line: Buffer; readonly offset: number; readonly size: number} | null = null;

	// biome-ignore lint/style/useConsistentMemberAccessibility: a constructor has no #private form; open() is the one way in.
	private constructor(path: string, fd: number) {
		this.path = path;
		this.#fd = fd;
	}

	/**
	 * Opens (creating if needed) the log; an unwritable or unsafe path is a UsageError naming it and the rule.
	 *
	 * The log often lives in a directory other users can write (a shared run dir, /tmp), and traintop may run as root:
	 * `ln -s /root/x RUN/traintop-memory.jsonl` made it create or append to /root/x. So, as ssh does for its own files:
	 * the last component is never followed (O_NOFOLLOW), a regular file must belong to the user who runs traintop, and
	 * the directory must not be group- or world-writable without the sticky bit (anyone who can write there can swap
	 * the log for a link or their own file between two opens). Links higher up the path are the path's owner's choice.
	 */
	static open(path: string): MemoryLogWriter {
		const refuse = (why: string) =>
			new UsageError(`cannot write the memory log ${path}: ${why} (choose another --log-file, or --no-log)`);
		const unsafeDir = unsafeDirectory(dirname(path));
		if (unsafeDir !== null) throw refuse(unsafeDir);
		let fd: number;
		try {
			// O_NONBLOCK: a FIFO at the log's path must not hold the open (nor, below, the first write) forever.
			fd = openSync(
				path,
				constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOFOLLOW,
				0o644,
			);
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code ?? 'error';
			if (code === 'ELOOP')
				throw refuse(
					'it is a symbolic link, and the memory log is never written through one (whoever made it could point it at any file)',
				);
			const reason = error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error);
			throw refuse(`${code} ${reason}`);
		}
		// A FIFO or socket cannot take appends without a reader: it fills, then blocks every write and the monitor
		// with it. A device stays allowed (`/dev/null`, `/dev/full` in the tests).
		const stats = fstatSync(fd);
		const kind = stats.isFIFO() || stats.isSocket() ? fileKind(stats) : null;
		const euid = process.geteuid?.() ?? stats.uid;
		const problem =
			kind !== null
				? `it is ${kind}, not a regular file`
				: stats.isFile() && stats.uid !== euid
					? `it belongs to user ${stats.uid}, not to you (user ${euid}): traintop appends only to a log of its own user`
					: null;
		if (problem !== null) {
			closeSync(fd);
			throw refuse(problem);
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
		// The same record again after a full disk took its head: go on from where the kernel stopped. Repairing the tail
		// instead would keep that head as a line of its own, and a head cut just before its newline is the whole record,
		// which the retry then wrote a second time.
		let offset = this.#resumeAt(line);
		try {
			if (offset === 0 && this.#maybeTorn) this.#repairTornTail();
			// A regular file takes the whole line in one write; the loop only matters on a nearly full
			// disk, where the kernel may accept part of it.
			while (offset < line.length) offset += writeSync(this.#fd, line, offset);
			this.#maybeTorn = false;
			this.#torn = null;
		} catch (error) {
			this.#maybeTorn = true;
			this.#torn = offset > 0 ? {line, offset, size: fstatSync(this.#fd).size} : null;
			throw error;
		}
	}

	/** Where to start writing `line`: after the head a failed append left, when nothing was appended since; else 0. */
	#resumeAt(line: Buffer): number {
		const torn = this.#torn;
		if (torn === null || !torn.line.equals(line)) return 0;
		return fstatSync(this.#fd!).size === torn.size ? torn.offset : 0;
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
