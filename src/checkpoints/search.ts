// Where the checkpoint scan looks: the run dir, then the directories below it, breadth first, MAX_SEARCH_DEPTH levels
// deep and MAX_DIRS_LISTED directories at most (scan-dirs.ts). Each directory listed is judged by the layouts (the
// scan's `judge`); one holding entries a layout claims is a checkpoint directory, and a claimed entry (a
// checkpoint-N dir, an Orbax step dir) is never entered: its files are the checkpoint's, not more places to look.
// So no list of names decides where checkpoints are: the layouts do. Names that never hold a job's checkpoints
// (.git, virtualenvs, data…) are not entered (scan-dirs.ts says which and why).
// The run dir itself is listed as it always was (an lstat per entry); the directories below it by name and type only
// (listed-entries.ts): a flat dir of 100k samples costs one readdir, not 100k stats, and a rescan one stat while it
// stands unchanged (quiet-dirs.ts).
// Symlinked directories are followed only when they resolve inside the run dir (checkpoints/confined.ts); each real
// directory is listed once, so a link loop ends.

import {realpath} from 'node:fs/promises';
import path from 'node:path';
import {UsageError, errorMessage} from '../core/errors.js';
import type {CheckpointSearch} from '../core/types.js';
import {fsPath, nameFromBytes} from '../system/byte-names.js';
import {inside} from './confined.js';
import {type Entry, listDir} from './fs.js';
import type {ScanDir} from './layouts/layout.js';
import {listEntriesByName} from './listed-entries.js';
import {dirStamp, noteQuiet, QUIET_FROM, stillQuiet} from './quiet-dirs.js';
import {MAX_DIRS_LISTED, MAX_SEARCH_DEPTH, skippedForContent, skippedName} from './scan-dirs.js';

export interface SearchContext {
	readonly root: string;
	readonly realRoot: string;
	readonly warnings: string[];
}

/**
 * Judges one directory's entries (the layouts): the entries claimed as checkpoints, and whether it said anything
 * (a group, a warning) even without a claim.
 */
type JudgeDir = (dir: ScanDir) => Promise<{readonly claimed: readonly Entry[]; readonly said: boolean}>;

/** How many skipped directories a search names; the rest only count. */
const SKIPPED_NAMED = 10;

/** Names worth a warning when they are symlinks to directories outside the run dir (others are skipped quietly). */
const CHECKPOINTISH = /ckpt|checkpoint|step|iter|weights|lightning_logs/i;

/** realpath of a path whose names may not be UTF-8 (system/byte-names.ts). */
async function realPath(file: string): Promise<string> {
	return nameFromBytes(await realpath(fsPath(file), {encoding: 'buffer'}));
}

const join = (rel: string, name: string): string => (rel === '' ? name : `${rel}/${name}`);

/** The entries of `rel`: the run dir's with an lstat each (as always), the others by name; null: not listable. */
async function entriesOf(ctx: SearchContext, rel: string): Promise<Entry[] | null> {
	const dir = path.join(ctx.root, rel);
	if (rel === '')
		return listDir(dir).catch((caught: unknown) => {
			throw new UsageError(`run dir ${ctx.root} cannot be listed: ${errorMessage(caught)}`);
		});
	try {
		return listEntriesByName(dir);
	} catch {
		return null; // not a directory any more, vanished, or unreadable: nothing to say
	}
}

interface Opened {
	readonly dir: ScanDir;
	readonly real: string;
	/** Its stamp before it was listed (quiet-dirs.ts); null for the run dir. */
	readonly stamp: string | null;
	/** Found quiet by an earlier scan and unchanged since: not listed, nothing to judge. */
	readonly quiet: boolean;
}

/** `rel`'s entries, or null when it is absent, not a directory, already listed, or leads out of the run dir. */
async function openDir(ctx: SearchContext, rel: string, seen: Set<string>): Promise<Opened | null> {
	const dir = path.join(ctx.root, rel);
	const real = await realPath(dir).catch(() => null);
	if (real === null || !inside(ctx.realRoot, real) || seen.has(real)) return null;
	seen.add(real);
	const stamp = rel === '' ? null : dirStamp(dir);
	if (stillQuiet(real, stamp)) return {dir: {path: dir, rel, entries: []}, real, stamp, quiet: true};
	const entries = await entriesOf(ctx, rel);
	if (entries === null) return null;
	const kept: Entry[] = [];
	for (const entry of entries) {
		if (entry.symlink && entry.type === 'dir') {
			const target = await realPath(entry.path).catch(() => null);
			if (target === null || !inside(ctx.realRoot, target)) {
				if (CHECKPOINTISH.test(entry.name)) {
					const to = target ?? entry.linkTarget ?? '?';
					ctx.warnings.push(`${join(rel, entry.name)}: symlink to ${to}, outside the run dir: not followed`);
				}
				continue;
			}
		}
		kept.push(entry);
	}
	return {dir: {path: dir, rel, entries: kept}, real, stamp, quiet: false};
}

/** Likely places first, so that a search stopped at its cap has looked where checkpoints usually are. */
function searchOrder(a: Entry, b: Entry): number {
	const likely = Number(CHECKPOINTISH.test(b.name)) - Number(CHECKPOINTISH.test(a.name));
	return likely || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/**
 * Lists the run dir and the directories below it, judging each with `judge`. Throws UsageError when the run dir
 * cannot be listed; problems below it become warnings or are passed over.
 */
export async function searchRunDir(ctx: SearchContext, judge: JudgeDir): Promise<CheckpointSearch> {
	const seen = new Set<string>();
	const listed: string[] = [];
	const checkpointDirs: string[] = [];
	const skipped: string[] = [];
	let skippedCount = 0;
	const skip = (rel: string) => {
		skippedCount += 1;
		if (skipped.length < SKIPPED_NAMED) skipped.push(rel);
	};
	const queue: {readonly rel: string; readonly depth: number}[] = [{rel: '', depth: 0}];
	let capped = false;
	for (let next = 0; next < queue.length; next++) {
		const {rel, depth} = queue[next] ?? {rel: '', depth: 0};
		if (listed.length >= MAX_DIRS_LISTED) {
			capped = true;
			const left = queue.length - next;
			ctx.warnings.push(
				`checkpoint search stopped at its cap of ${MAX_DIRS_LISTED} directories listed: ${left} more (and what is below them) not searched, from ${queue[next]?.rel ?? '?'}/ on`,
			);
			break;
		}
		const warned = ctx.warnings.length;
		const opened = await openDir(ctx, rel, seen);
		if (opened === null) continue;
		listed.push(rel);
		if (opened.quiet) continue;
		const {dir} = opened;
		if (rel !== '' && skippedForContent(dir.entries.map(entry => entry.name))) {
			skip(rel);
			continue;
		}
		const {claimed, said} = await judge(dir);
		const quiet =
			!said &&
			ctx.warnings.length === warned &&
			dir.entries.length >= QUIET_FROM &&
			!dir.entries.some(entry => entry.type === 'dir' || entry.symlink);
		if (rel !== '') noteQuiet(opened.real, quiet ? opened.stamp : null);
		const claimedPaths = new Set(claimed.map(entry => entry.path));
		for (const entry of claimed) if (entry.type === 'dir') checkpointDirs.push(join(rel, entry.name));
		if (depth >= MAX_SEARCH_DEPTH) continue;
		const below = dir.entries.filter(entry => entry.type === 'dir' && !claimedPaths.has(entry.path));
		for (const child of below.sort(searchOrder)) {
			const childRel = join(rel, child.name);
			if (skippedName(child.name)) skip(childRel);
			else queue.push({rel: childRel, depth: depth + 1});
		}
	}
	if (skippedCount > skipped.length) skipped.push(`${skippedCount - skipped.length} more`);
	return {dirs: listed.length, maxDepth: MAX_SEARCH_DEPTH, skipped, capped, listed, checkpointDirs};
}
