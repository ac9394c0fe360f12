// Finds the checkpoints of one run dir: searches it and the directories below it (search.ts: bounded in depth and in
// directories listed), asks each layout in turn about each directory (a specific layout's claim hides the entry from
// the later ones, the generic fallback last), adds sizes and sorts oldest first. Content problems never throw: they
// become warnings. Symlinked directories are followed only when they resolve inside the run dir.

import {realpath, stat} from 'node:fs/promises';
import path from 'node:path';
import {UsageError, errorMessage} from '../core/errors.js';
import type {ScanGroup, ScannedCheckpoint, ScanResult} from '../core/types.js';
import {readAt, readJson, readRange, readText, type JsonRead, type SkippedFile} from './file-reads.js';
import {entryAt, listDirOrNull, listNamesOrNull, type Entry} from './fs.js';
import {leadsOutside} from './confined.js';
import type {Found, Layout, LayoutIO, ScanDir} from './layouts/layout.js';
import {LAYOUTS} from './layouts/registry.js';
import {mapLimited} from './map-limited.js';
import {searchRunDir, type SearchContext} from './search.js';
import {checkpointTreeStats} from './tree-stats-cache.js';

/**
 * The real file system for the layouts; `skipped` hears of each file not opened (not a regular file, or a link out of
 * the run dir). With `realRoot`, nothing outside that real path is listed or read (checkpoints/confined.ts).
 */
export function fsIO(skipped?: SkippedFile, realRoot?: string): LayoutIO {
	const outside = async (file: string) => (realRoot === undefined ? null : leadsOutside(realRoot, file));
	const unlessOutside =
		<T>(read: (file: string) => Promise<T>, refused: (file: string, why: string) => T) =>
		async (file: string): Promise<T> => {
			const why = await outside(file);
			return why === null ? read(file) : refused(file, why);
		};
	const told = (file: string, why: string) => {
		skipped?.(file, why);
		return null;
	};
	return {
		list: unlessOutside(listDirOrNull, () => null),
		names: unlessOutside(listNamesOrNull, () => null),
		entry: entryAt,
		readJson: unlessOutside(readJson, (_, why): JsonRead => ({status: 'error', error: `skipped: ${why}`})),
		readText: (file, maxBytes) => unlessOutside(it => readText(it, maxBytes, skipped), told)(file),
		readRange: (file, count, from) => unlessOutside(it => readRange(it, count, from, skipped), told)(file),
		readAt: (file, offset, count) => unlessOutside(it => readAt(it, offset, count, skipped), told)(file),
	};
}

export const FS_IO: LayoutIO = fsIO();

/** The run dir's real path. Throws UsageError when it is missing, not a directory or unreadable. */
async function openRunDir(root: string): Promise<string> {
	try {
		const real = await realpath(root);
		if (!(await stat(real)).isDirectory()) throw new UsageError(`run dir ${root} is not a directory`);
		return real;
	} catch (caught) {
		if (caught instanceof UsageError) throw caught;
		const code = (caught as NodeJS.ErrnoException).code;
		if (code === 'ENOENT') throw new UsageError(`run dir ${root} does not exist`);
		throw new UsageError(`run dir ${root} cannot be read: ${errorMessage(caught)}`);
	}
}

/** The group key of one layout's checkpoints in one directory. */
export function groupKey(layout: string, rel: string): string {
	return `${layout}:${rel}`;
}

/**
 * How long writing the checkpoint took: from its first file's creation to its last file's last write. Null where the
 * file system records no birth time, or where the last write predates the first birth (files copied with their
 * mtimes kept). A file rewritten in place keeps its first birth, so this can exceed the save itself: readers weigh
 * it against the cadence (checkpoints/save-duration.ts).
 */
export function writeSeconds(firstBirthMs: number, lastMtimeMs: number): number | null {
	if (!(firstBirthMs > 0) || !(lastMtimeMs > 0) || lastMtimeMs < firstBirthMs) return null;
	return (lastMtimeMs - firstBirthMs) / 1000;
}

/**
 * Checkpoints sized at the same time (each a tree walk of its own, STATS_AT_ONCE calls at a time in fs.ts): libuv runs
 * four file-system calls at once for the whole process, so more in flight only queue, ahead of the monitor's own reads.
 */
const SIZED_AT_ONCE = 4;

async function complete(layout: string, group: string, item: Found): Promise<ScannedCheckpoint> {
	const {entry} = item;
	const warnings = [...item.warnings];
	let files = {bytes: entry.size, firstBirthMs: entry.birthtimeMs, lastMtimeMs: entry.mtimeMs};
	if (entry.type !== 'file') files = {bytes: 0, firstBirthMs: 0, lastMtimeMs: 0};
	if (entry.type === 'dir') {
		const summed = await checkpointTreeStats(entry.path, item.status === 'complete');
		files = summed;
		if (summed.error !== null) warnings.push(`size counts only what could be read: ${summed.error}`);
	}
	return {
		path: entry.path,
		name: entry.name,
		layout,
		step: item.step,
		epoch: item.epoch,
		time: item.time ?? entry.mtimeMs,
		bytes: files.bytes,
		writeS: item.status === 'complete' ? writeSeconds(files.firstBirthMs, files.lastMtimeMs) : null,
		status: item.status,
		kind: item.kind,
		loss: item.loss,
		metric: item.metric,
		group,
		warnings,
		...(item.reason === undefined ? {} : {reason: item.reason}),
	};
}

function byTimeThenPath(a: ScannedCheckpoint, b: ScannedCheckpoint): number {
	return a.time - b.time || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/**
 * Oldest first: checkpoints with a step in step order, those without one placed among them by time (a merge of the
 * two sorted lists, so the order is total and stable).
 */
export function oldestFirst(list: readonly ScannedCheckpoint[]): ScannedCheckpoint[] {
	const stepped = list
		.filter(item => item.step !== null)
		.sort((a, b) => (a.step ?? 0) - (b.step ?? 0) || byTimeThenPath(a, b));
	const unstepped = list.filter(item => item.step === null).sort(byTimeThenPath);
	const merged: ScannedCheckpoint[] = [];
	let i = 0;
	let j = 0;
	while (i < stepped.length || j < unstepped.length) {
		const a = stepped[i];
		const b = unstepped[j];
		if (b === undefined || (a !== undefined && byTimeThenPath(a, b) <= 0)) {
			if (a !== undefined) merged.push(a);
			i += 1;
		} else {
			merged.push(b);
			j += 1;
		}
	}
	return merged;
}

/**
 * The checkpoints under `runDir`, oldest first. Throws UsageError (core/errors.ts: the CLI exits 2) when `runDir`
 * does not exist, is not a directory, or cannot be listed; every other problem becomes a warning.
 */
export async function scanRunDir(
	runDir: string,
	given?: LayoutIO,
	layouts: readonly Layout[] = LAYOUTS,
): Promise<ScanResult> {
	const root = path.resolve(runDir);
	const ctx: SearchContext = {root, realRoot: await openRunDir(root), warnings: []};
	// A FIFO where a layout reads a file: not opened (it would block), and named in a warning (once, by its path).
	const skipped = new Map<string, string>();
	const io = given ?? fsIO((file, reason) => skipped.set(file, reason), ctx.realRoot);
	const pending: {readonly layout: string; readonly group: string; readonly item: Found}[] = [];
	const seenLayouts = new Set<string>();
	const groups: ScanGroup[] = [];
	/** Each layout in turn on what the earlier ones left; what they claimed is not searched below. */
	const judge = async (dir: ScanDir) => {
		let entries = dir.entries;
		const claimed: Entry[] = [];
		let said = false;
		for (const layout of layouts) {
			if (entries.length === 0) break;
			const result = await layout.find({...dir, entries}, io);
			ctx.warnings.push(...result.warnings);
			said ||= result.warnings.length > 0;
			if (result.found.length === 0 && result.declared === null) continue;
			said = true;
			seenLayouts.add(layout.name);
			const key = groupKey(layout.name, dir.rel);
			groups.push({key, layout: layout.name, dir: dir.rel, declared: result.declared});
			const paths = new Set(result.found.map(item => item.entry.path));
			claimed.push(...entries.filter(entry => paths.has(entry.path)));
			entries = entries.filter(entry => !paths.has(entry.path));
			pending.push(...result.found.map(item => ({layout: layout.name, group: key, item})));
		}
		return {claimed, said};
	};
	const search = await searchRunDir(ctx, judge);
	// Sized a few at a time: all at once put every file of every checkpoint in flight (issue 17).
	const sized = await mapLimited(pending, SIZED_AT_ONCE, ({layout, group, item}) => complete(layout, group, item));
	const checkpoints = oldestFirst(sized);
	for (const [file, reason] of skipped) ctx.warnings.push(`${path.relative(root, file)}: skipped: ${reason}`);
	return {
		runDir: root,
		layouts: layouts.map(layout => layout.name).filter(name => seenLayouts.has(name)),
		checkpoints,
		groups,
		warnings: ctx.warnings,
		search,
	};
}
