// Where a run dir's metrics.csv files are: Lightning's CSVLogger writes save_dir/name/version_N/metrics.csv
// (src/lightning/pytorch/loggers/csv_logs.py log_dir; name defaults to lightning_logs), so with save_dir the run dir
// it is RUN/lightning_logs/version_0/metrics.csv, and with save_dir=RUN/logs one level deeper. The walk lists the run
// dir and the directories below it, MAX_DEPTH levels and MAX_DIRS directories at most, never entering the names the
// checkpoint search skips (scan-dirs.ts: hidden dirs, virtualenvs, data…), symlinks, or the checkpoints the index
// names (a checkpoint-N dir holds the save's files, no logs). A directory is listed again only when its inode or
// mtime changed (a name made or removed in it): the reader walks every 10 s at most, and an unchanged tree costs one
// stat per directory.

import type {Dirent} from 'node:fs';
import {readdir, stat} from 'node:fs/promises';
import path from 'node:path';
import {fsPath, nameFromBytes} from '../system/byte-names.js';
import {skippedName} from './scan-dirs.js';

const METRICS_FILE = 'metrics.csv';
/** RUN/a/b/c/metrics.csv at most: CSVLogger(save_dir=RUN/logs, name=…) puts it at depth 3. */
const MAX_DEPTH = 3;
/** Directories listed in one walk, the run dir included. */
const MAX_DIRS = 100;

interface Listing {
	readonly stamp: string;
	readonly dirs: readonly string[];
	readonly csv: boolean;
}

/** The walk's memory between calls: each directory's stamp and what it held. */
export type ListingCache = Map<string, Listing>;

async function stampOf(dir: string): Promise<string | null> {
	try {
		const own = await stat(fsPath(dir));
		return own.isDirectory() ? `${own.ino}:${own.mtimeMs}` : null;
	} catch {
		return null;
	}
}

async function listing(dir: string, cache: ListingCache): Promise<Listing | null> {
	const stamp = await stampOf(dir);
	if (stamp === null) {
		cache.delete(dir);
		return null;
	}
	const kept = cache.get(dir);
	if (kept?.stamp === stamp) return kept;
	let entries: Dirent<Buffer>[];
	try {
		entries = await readdir(fsPath(dir), {withFileTypes: true, encoding: 'buffer'});
	} catch {
		cache.delete(dir);
		return null;
	}
	const dirs: string[] = [];
	let csv = false;
	for (const entry of entries) {
		const name = nameFromBytes(entry.name);
		if (entry.isDirectory() && !skippedName(name)) dirs.push(path.join(dir, name));
		else if (name === METRICS_FILE && entry.isFile()) csv = true;
	}
	const made = {stamp, dirs, csv};
	cache.set(dir, made);
	return made;
}

/**
 * Every metrics.csv below `runDir` within the bounds, breadth first; `skip` holds absolute paths never entered (the
 * index's checkpoints).
 */
export async function findMetricsCsv(
	runDir: string,
	skip: ReadonlySet<string>,
	cache: ListingCache,
): Promise<string[]> {
	const found: string[] = [];
	let level = [runDir];
	let listed = 0;
	const seen = new Set<string>();
	for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
		const next: string[] = [];
		for (const dir of level) {
			if (listed >= MAX_DIRS) return found;
			listed++;
			seen.add(dir);
			const own = await listing(dir, cache);
			if (own === null) continue;
			if (own.csv) found.push(path.join(dir, METRICS_FILE));
			next.push(...own.dirs.filter(sub => !skip.has(sub)));
		}
		level = next;
	}
	// Directories gone from the tree are forgotten, so the cache stays the size of the walk.
	for (const dir of cache.keys()) if (!seen.has(dir)) cache.delete(dir);
	return found;
}

/** Of `files`, the one written last (the run's current logger version); null when none can be stat'ed. */
export async function newestFile(files: readonly string[]): Promise<string | null> {
	let best: {file: string; mtimeMs: number} | null = null;
	for (const file of files) {
		try {
			const {mtimeMs} = await stat(fsPath(file));
			if (best === null || mtimeMs > best.mtimeMs) best = {file, mtimeMs};
		} catch {
			// gone since listed
		}
	}
	return best?.file ?? null;
}
