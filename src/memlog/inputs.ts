// Which files `traintop --analyze PATH...` reads (files, globs and run directories), and opening them: only
// regular files, never a FIFO or a device, which would block the read or never end.

import {constants, type Stats} from 'node:fs';
import {type FileHandle, open, readdir, stat} from 'node:fs/promises';
import path from 'node:path';
import {pipeline, type Readable} from 'node:stream';
import {createGunzip} from 'node:zlib';
import {UsageError} from '../core/errors.js';
import {printable} from '../format/printable.js';
import {fileKind} from '../system/safe-read.js';

const MEMORY_LOG_NAME = /^traintop-memory.*\.jsonl/;

function globToRegExp(pattern: string): RegExp {
	let re = '^';
	for (const ch of pattern) {
		if (ch === '*') re += '[^/]*';
		else if (ch === '?') re += '[^/]';
		else re += ch.replace(/[\\^$.|+(){}[\]]/g, '\\$&');
	}
	return new RegExp(`${re}$`);
}

function errorCode(error: unknown): string {
	const code = (error as {code?: unknown} | null)?.code;
	return typeof code === 'string' ? code : (error as Error).message;
}

async function statOrNull(p: string): Promise<Stats | null> {
	try {
		return await stat(p);
	} catch {
		return null;
	}
}

/**
 * The refusal of a path that is not a regular file: reading a FIFO waits for a writer forever, a device never
 * ends. Null for a regular file.
 */
function notRegularFile(file: string, st: Stats): UsageError | null {
	const kind = fileKind(st);
	return kind === null
		? null
		: new UsageError(`${printable(file)}: not a regular file (${kind}); --analyze reads files`);
}

async function memoryLogsIn(dir: string): Promise<string[]> {
	let names: string[];
	try {
		names = (await readdir(dir)).filter(n => MEMORY_LOG_NAME.test(n)).sort();
	} catch (error) {
		throw new UsageError(`${printable(dir)}: cannot read the directory (${errorCode(error)})`);
	}
	const files: string[] = [];
	for (const name of names) {
		const full = path.join(dir, name);
		// Only regular files: a FIFO or a socket named like a log is no log (and would block the read).
		if ((await statOrNull(full))?.isFile()) files.push(full);
	}
	return files;
}

/**
 * Files, globs (`*` and `?` in the last path segment) and run directories (their
 * traintop-memory*.jsonl* files, sorted), in the order given, without duplicates. A path that
 * matches nothing, cannot be read or is not a regular file (a FIFO would block the read) is a UsageError naming it.
 */
export async function resolveInputs(args: readonly string[]): Promise<string[]> {
	const out: string[] = [];
	const seen = new Set<string>();
	const add = (f: string): void => {
		if (!seen.has(f)) {
			seen.add(f);
			out.push(f);
		}
	};
	for (const arg of args) {
		const base = path.basename(arg);
		if (/[*?]/.test(base)) {
			const dir = path.dirname(arg);
			const re = globToRegExp(base);
			let names: string[];
			try {
				names = await readdir(dir);
			} catch (error) {
				throw new UsageError(`${arg}: matches no file (cannot read the directory ${dir}: ${errorCode(error)})`);
			}
			const matched: string[] = [];
			for (const name of names.sort()) {
				if (!re.test(name) || (name.startsWith('.') && !base.startsWith('.'))) continue;
				const full = path.join(dir, name);
				const st = await statOrNull(full);
				if (st?.isFile()) matched.push(full);
				else if (st?.isDirectory()) matched.push(...(await memoryLogsIn(full)));
			}
			if (matched.length === 0) throw new UsageError(`${arg}: matches no file`);
			matched.forEach(add);
			continue;
		}
		let st: Stats;
		try {
			st = await stat(arg);
		} catch (error) {
			const code = errorCode(error);
			throw new UsageError(
				code === 'ENOENT' ? `${arg}: no such file or directory` : `${arg}: cannot read it (${code})`,
			);
		}
		if (st.isDirectory()) {
			const files = await memoryLogsIn(arg);
			if (files.length === 0) throw new UsageError(`${arg}: a directory with no traintop-memory*.jsonl* file`);
			files.forEach(add);
		} else {
			const refused = notRegularFile(arg, st);
			if (refused) throw refused;
			add(arg);
		}
	}
	return out;
}

/**
 * Opens a log to stream it (gunzipped for `.gz`), `chunk` bytes a read; it must be a regular file. The inputs were
 * checked when listed, but a file can become a FIFO since: O_NONBLOCK makes the open of a FIFO return at once (it
 * would wait for a writer), and fstat of what was opened refuses it, so nothing but a regular file is ever read.
 */
export async function openLog(file: string, chunk: number): Promise<Readable> {
	let handle: FileHandle;
	try {
		handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch (error) {
		throw new UsageError(`cannot read ${printable(file)}: ${errorCode(error)}`);
	}
	const refused = notRegularFile(file, await handle.stat());
	if (refused) {
		await handle.close();
		throw refused;
	}
	const raw = handle.createReadStream({highWaterMark: chunk});
	if (!file.endsWith('.gz')) return raw;
	return pipeline(raw, createGunzip({chunkSize: chunk}), () => {
		// Errors surface through the iteration of the last stream.
	});
}
