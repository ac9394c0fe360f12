// What a CheckpointWatcher (watch.ts) is built from: kept apart so that watch.ts holds only the watching.

import type {EventEmitter} from 'node:events';
import path from 'node:path';
import {watch} from 'chokidar';
import type {CheckpointIndex, CheckpointSearch, ScanResult} from '../core/types.js';
import {DirectoryWatcher} from './dir-watch.js';
import type {DiskSpace} from './disk.js';
import {MAX_SEARCH_DEPTH, wantedDir} from './scan-dirs.js';
import {ScanThread} from './scan-thread.js';

export type ScanFunction = (runDir: string) => Promise<ScanResult>;
export type IndexListener = (index: CheckpointIndex) => void;

/** scanRunDir, loaded on first use: a watcher given its own scan (tests) never loads the layouts. */
const defaultScan: ScanFunction = async runDir => {
	const {scanRunDir} = await import('./scan.js');
	return scanRunDir(runDir);
};

/** A watcher's own scan, when it is given none, and how to end it. */
export interface OwnScan {
	readonly scan: ScanFunction;
	close(): Promise<void>;
}

/**
 * scanRunDir on a thread of its own (scan-thread.ts: the event loop stays free for sampling however big the run dir),
 * or on this one when running from the sources, which have no built worker file (the tests that drive dist/ get the
 * thread).
 */
export function ownScan(): OwnScan {
	if (!ScanThread.available()) return {scan: defaultScan, close: async () => {}};
	const thread = new ScanThread();
	return {scan: runDir => thread.scan(runDir), close: () => thread.close()};
}

export interface CheckpointWatcherOptions {
	readonly runDir: string;
	/** --keep N; null: the job's metadata decides. */
	readonly keep: number | null;
	/** Default: ownScan(), scanRunDir from ./scan.js on a thread of its own. */
	readonly scan?: ScanFunction;
	/** Default: diskSpace from ./disk.js. */
	readonly disk?: (dir: string) => Promise<DiskSpace | null>;
	/** Poll with stat() every intervalMs instead of inotify; null/undefined: inotify. */
	readonly poll?: {readonly intervalMs: number} | null;
	/** A burst of events becomes one rescan this long after its first event. Default 200. */
	readonly debounceMs?: number;
	readonly now?: () => number;
	/** Default: openRunDirWatcher. Tests wrap it to reach the file watcher (to make it fail, say). */
	readonly watch?: WatchFactory;
	/** How often the run dir is checked for being deleted or made again (run-dir-presence.ts). Default 1000. */
	readonly identityCheckMs?: number;
}

/** What CheckpointWatcher needs of a file watcher: `all` per change, `error`, `ready` once watching, and close(). */
export interface RunDirWatcher extends EventEmitter {
	close(): Promise<void>;
	/** Brings the set of watched directories up to date; called before each rescan (DirectoryWatcher). */
	settle?(): Promise<void>;
	/**
	 * Told where a scan that started at `sinceMs` (epoch ms) looked; true when a directory it now watches changed
	 * before its watch was there: scan again (DirectoryWatcher).
	 */
	follow?(search: CheckpointSearch, sinceMs: number): Promise<boolean>;
}

export type WatchFactory = (runDir: string, poll: {readonly intervalMs: number} | null) => RunDirWatcher;

/**
 * inotify: a DirectoryWatcher (one watch per directory the scan looks in). Polling: chokidar's stat() poller, kept
 * off the directories the scan never looks in by their paths (scan-dirs.ts wantedDir: it knows no scan).
 */
export const openRunDirWatcher: WatchFactory = (runDir, poll) => {
	if (poll === null) return new DirectoryWatcher(runDir);
	return watch(runDir, {
		persistent: true,
		ignoreInitial: true,
		depth: MAX_SEARCH_DEPTH + 1,
		usePolling: true,
		interval: poll.intervalMs,
		binaryInterval: poll.intervalMs,
		ignored: (file, stats) => stats?.isDirectory() === true && !wantedDir(relativeTo(runDir, file)),
		// awaitWriteFinish stays off: checkpoints are renamed into place, and waiting would only add latency.
		atomic: false,
		ignorePermissionErrors: true,
	});
};

function relativeTo(root: string, file: string): string {
	return path.relative(root, file).split(path.sep).join('/');
}
