// The indexes a CheckpointWatcher gives before it has scanned the run dir: views read "no index" as "no RUN_DIR
// given", so a watcher always has one, and says why it has no checkpoints yet.

import type {CheckpointIndex} from '../core/types.js';
import {WAITING_FOR_RUN_DIR} from '../format/checkpoints.js';
import {buildIndex} from './retention.js';

const empty = (runDir: string, keep: number | null, now: number, warnings: string[]): CheckpointIndex =>
	buildIndex({runDir, layouts: [], checkpoints: [], groups: [], warnings}, {keep, now, disk: null});

/**
 * While the first scan runs: the monitor samples memory from its first tick instead of waiting for the scan (a run
 * dir of 100k files kept the first status line back 5–10 s).
 */
export function scanningIndex(runDir: string, keep: number | null, now: number): CheckpointIndex {
	return {...empty(runDir, keep, now, []), scanning: true};
}

/**
 * Started before the job made its run dir (`torchrun … & traintop runs/x --pid $!`). Unlike scanningIndex it stands
 * for a real state, no run dir: everything complete in the dir once it appears was saved since, and is reported so.
 */
export function waitingIndex(runDir: string, keep: number | null, now: number): CheckpointIndex {
	return empty(runDir, keep, now, [WAITING_FOR_RUN_DIR]);
}

/**
 * The run dir is there but cannot be read (a non-root user, a dir of another user's mode 700): nothing in it is known,
 * which is not "no checkpoints". Like scanningIndex, what is in it once it can be read is not reported as new.
 */
export function unreadableIndex(runDir: string, keep: number | null, now: number, why: string): CheckpointIndex {
	return {...empty(runDir, keep, now, [why]), scanning: true};
}
