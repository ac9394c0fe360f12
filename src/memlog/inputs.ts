// Which files `traintop --analyze PATH...` reads: files, globs and run directories.

import {readdir, stat} from 'node:fs/promises';
import path from 'node:path';
import {UsageError} from '../core/errors.js';

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

async function statOrNull(p: string): Promise<import('node:fs').Stats | null> {
	try {
		return await stat(p);
	} catch {
		return null;
	}
}

async function memoryLogsIn(dir: string): Promise<string[]> {
	const names = (await readdir(dir)).filter(n => MEMORY_LOG_NAME.test(n)).sort();
	const files: string[] = [];
	for (const name of names) {
		const full = path.join(dir, name);
		if ((await statOrNull(full))?.isFile()) files.push(full);
	}
	return files;
}

/**
 * Files, globs (`*` and `?` in the last path segment) and run directories (their
 * traintop-memory*.jsonl* files, sorted), in the order given, without duplicates. A path that
 * matches nothing is a UsageError naming it.
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
			} catch {
				throw new UsageError(`${arg}: matches no file (cannot read the directory ${dir})`);
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
		const st = await statOrNull(arg);
		if (st === null) throw new UsageError(`${arg}: no such file or directory`);
		if (st.isDirectory()) {
			const files = await memoryLogsIn(arg);
			if (files.length === 0) throw new UsageError(`${arg}: a directory with no traintop-memory*.jsonl* file`);
			files.forEach(add);
		} else {
			add(arg);
		}
	}
	return out;
}
