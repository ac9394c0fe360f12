// The step signals the checkpoint index gives without another read of the disk: the newest complete save (its step
// and the time the index has for it: the layout's own metadata, else its mtime), and where the newest Hugging Face
// trainer_state.json files are (trainer.py _save_checkpoint writes one into each checkpoint-N, last; save_state writes
// output_dir/trainer_state.json, output_dir being the checkpoint dir's parent).

import path from 'node:path';
import type {Checkpoint, CheckpointIndex} from '../core/checkpoint-types.js';
import {type Moves, baseline, moved} from './progress-moves.js';

const STATE_FILE = 'trainer_state.json';

/** The newest complete checkpoint: the last in the index's order (by step where known, else time); null: none. */
function newestComplete(index: CheckpointIndex): Checkpoint | null {
	return index.checkpoints.findLast(checkpoint => checkpoint.status === 'complete') ?? null;
}

/**
 * The trainer_state.json files worth following, most specific first: the newest complete HF checkpoint's (by step,
 * as its name says), its output_dir's, and the run dir's own.
 */
export function trainerStateFiles(index: CheckpointIndex | null, runDir: string | null): string[] {
	const files: string[] = [];
	let newest: Checkpoint | null = null;
	for (const checkpoint of index?.checkpoints ?? []) {
		if (checkpoint.layout !== 'huggingface' || checkpoint.status !== 'complete') continue;
		const later = (checkpoint.step ?? -1) - (newest?.step ?? -1) || checkpoint.time - (newest?.time ?? 0);
		if (newest === null || later > 0) newest = checkpoint;
	}
	if (newest !== null) {
		files.push(path.join(newest.path, STATE_FILE), path.join(path.dirname(newest.path), STATE_FILE));
	}
	if (runDir !== null) files.push(path.join(runDir, STATE_FILE));
	return [...new Set(files)];
}

/** What the checkpoints signal tracks: the newest complete save seen, and its history. */
export interface CheckpointTrack {
	/** The newest save when last looked; null: none yet. */
	readonly newest: {readonly path: string; readonly time: number; readonly step: number | null} | null;
	readonly moves: Moves | null;
}

function newerSave(seen: Checkpoint, tracked: CheckpointTrack['newest']): boolean {
	if (tracked === null) return true;
	if (seen.path === tracked.path) return seen.time > tracked.time; // rewritten in place: Lightning's last.ckpt
	return seen.time > tracked.time || (seen.step ?? -1) > (tracked.step ?? -1);
}

/**
 * The track after looking at `index` at `now`: the first index seen sets the baseline (its saves were there before
 * traintop looked); a newer save is a move, at the time the index has for it (never later than now, never before
 * the previous move).
 */
export function trackCheckpoints(track: CheckpointTrack | null, index: CheckpointIndex, now: number): CheckpointTrack {
	const seen = newestComplete(index);
	const newest = seen === null ? null : {path: seen.path, time: seen.time, step: seen.step};
	if (track === null) {
		return {newest, moves: seen === null ? null : baseline('checkpoints', seen.path, seen.step)};
	}
	if (seen === null || !newerSave(seen, track.newest)) return track;
	const previous = track.moves?.movedAt ?? Number.NEGATIVE_INFINITY;
	const at = Math.max(previous, Math.min(seen.time, now));
	const from = track.moves ?? baseline('checkpoints', seen.path, null);
	return {newest, moves: moved(from, at, seen.step, seen.path)};
}
