// Large directories below the run dir in which the layouts found nothing, kept between rescans (the scan thread keeps
// its module state, as tree-stats-cache.ts does): a flat dir of 100k eval samples cost each rescan 0.6 s of CPU to
// list and judge again, though nothing in it had changed. Such a directory is listed again only when its inode,
// mtime or ctime changed: a name created, removed or renamed in it changes them. Only a directory with no
// subdirectory is kept: what the layouts claim in one is decided by its names (a file's contents decide a
// checkpoint's status, never whether it is one), whereas a subdirectory's own files can make it a checkpoint without
// changing its parent's times.

import {statSync} from 'node:fs';
import {fsPath} from '../system/byte-names.js';

/** Below this many entries a directory is cheaper to list again than to remember. */
export const QUIET_FROM = 1000;
/** Directories remembered; past it the oldest goes. */
const MAX_KEPT = 1000;

/** real path → its stamp when the layouts found nothing in it. */
const kept = new Map<string, string>();

/** A directory's inode, mtime and ctime (nanoseconds), or null when it cannot be stat'ed. */
export function dirStamp(dir: string): string | null {
	try {
		const own = statSync(fsPath(dir), {bigint: true});
		return own.isDirectory() ? `${own.ino}:${own.mtimeNs}:${own.ctimeNs}` : null;
	} catch {
		return null;
	}
}

/** Whether `real` was found quiet with this very stamp. */
export function stillQuiet(real: string, stamp: string | null): boolean {
	return stamp !== null && kept.get(real) === stamp;
}

/** Remembers `real` as quiet at `stamp` (taken before it was listed), or forgets it (null). */
export function noteQuiet(real: string, stamp: string | null): void {
	kept.delete(real);
	if (stamp === null) return;
	if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value ?? '');
	kept.set(real, stamp);
}
