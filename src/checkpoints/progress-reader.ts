// The job's step signals, for the progress verdict (core/progress.ts): the newest checkpoint (from the index, no
// read of the disk), a Hugging Face trainer_state.json, a Lightning metrics.csv, and the log the user names with
// --progress-file. Called on every Monitor tick, so it is cheap and never waits: read() hands back what the last
// refresh made and starts the next one when none runs (a file system that hangs, as on a hung job's NFS, stalls
// this reader's refresh, never the tick). A refresh costs one stat per followed file, a bounded read only of a file
// whose inode, size or mtime changed, and every DISCOVER_MS at most a bounded walk for metrics.csv files and a stat
// of the trainer_state.json candidates. The same array object comes back while nothing changed.
// When a signal moves: a checkpoints signal when a newer save appears; a trainer_state.json or metrics.csv when it
// names a higher step (a cut or half-rewritten file names a lower or none: not a move), or a metrics.csv made anew (a
// new logger version); the --progress-file when it grows. The first reading of each is the baseline, not a move.

import path from 'node:path';
import type {CheckpointIndex} from '../core/checkpoint-types.js';
import type {StepSignal} from '../core/progress-types.js';
import {shownName} from '../system/byte-names.js';
import {findMetricsCsv, type ListingCache, newestFile} from './progress-find.js';
import {type FileStamp, type FollowedKind, type Look, look} from './progress-follow.js';
import {type CheckpointTrack, trackCheckpoints, trainerStateFiles} from './progress-checkpoints.js';
import {baseline, type Moves, moved, sameSignals, signalOf} from './progress-moves.js';

/** How often the reader looks for new metrics.csv and trainer_state.json files. */
export const DISCOVER_MS = 10_000;

export interface StepSignalReaderOptions {
	readonly runDir: string | null;
	/** --progress-file, as given (relative to the working directory). */
	readonly progressFile: string | null;
	readonly now?: () => number;
	/** Told after a refresh that changed the signals or the problems (a caller may sample at once). */
	readonly onChange?: () => void;
}

interface Followed {
	readonly kind: FollowedKind;
	path: string;
	stamp: FileStamp | null;
	moves: Moves | null;
	/**
	 * The first reading is a baseline rather than a move: a file there at the first refresh, and any
	 * trainer_state.json (the index may come after the first refresh; its saves are the checkpoints signal's).
	 */
	baselineFirst: boolean;
}

const ORDER: readonly FollowedKind[] = ['trainer-state', 'metrics-csv', 'progress-file'];

export class StepSignalReader {
	readonly #runDir: string | null;
	readonly #progressFile: string | null;
	readonly #now: () => number;
	readonly #onChange: (() => void) | undefined;
	readonly #followed = new Map<FollowedKind, Followed>();
	readonly #listings: ListingCache = new Map();
	#checkpoints: CheckpointTrack | null = null;
	#signals: readonly StepSignal[] = [];
	#problems: readonly string[] = [];
	#discoveredAt: number | null = null;
	#stateFiles = '';
	#started = false;
	#running: Promise<readonly StepSignal[]> | null = null;
	#chain: Promise<unknown> = Promise.resolve();

	constructor(options: StepSignalReaderOptions) {
		this.#runDir = options.runDir === null ? null : path.resolve(options.runDir);
		this.#progressFile = options.progressFile === null ? null : path.resolve(options.progressFile);
		this.#now = options.now ?? Date.now;
		this.#onChange = options.onChange;
		if (this.#progressFile !== null) this.#follow('progress-file', this.#progressFile);
	}

	/** The signals as the last refresh made them; starts the next refresh unless one runs. Never waits, never throws. */
	read(index: CheckpointIndex | null): readonly StepSignal[] {
		if (this.#running === null) {
			this.#running = this.refresh(index).finally(() => {
				this.#running = null;
			});
			this.#running.catch(() => {});
		}
		return this.#signals;
	}

	/** One refresh now (after any that runs), resolved with the signals it made: for a caller that can wait. */
	refresh(index: CheckpointIndex | null): Promise<readonly StepSignal[]> {
		const next = this.#chain.then(() => this.#refresh(index));
		this.#chain = next.catch(() => {});
		return next;
	}

	/** Problems with --progress-file (not found, unreadable), in words; the same array while they stay the same. */
	problems(): readonly string[] {
		return this.#problems;
	}

	async #refresh(index: CheckpointIndex | null): Promise<readonly StepSignal[]> {
		const now = this.#now();
		if (index !== null && index.scanning !== true) this.#checkpoints = trackCheckpoints(this.#checkpoints, index, now);
		const due = this.#discoveredAt === null || now - this.#discoveredAt >= DISCOVER_MS;
		if (due) {
			this.#discoveredAt = now;
			await this.#discoverCsv(index);
		}
		await this.#pickTrainerState(index, due);
		let problem: string | null = null;
		for (const kind of ORDER) {
			const followed = this.#followed.get(kind);
			if (followed === undefined) continue;
			const seen = await look(followed.path, kind, followed.stamp);
			if (kind === 'progress-file') problem = problemOf(followed.path, seen);
			this.#apply(followed, seen, this.#now());
		}
		if (!this.#started) {
			// What the first refresh did not read appears later: written while traintop watched, so a move.
			for (const followed of this.#followed.values()) {
				if (followed.moves === null && followed.kind !== 'trainer-state') followed.baselineFirst = false;
			}
		}
		this.#started = true;
		const changed = this.#publish(problem);
		if (changed) this.#onChange?.();
		return this.#signals;
	}

	#follow(kind: FollowedKind, file: string): void {
		const followed = this.#followed.get(kind);
		if (followed === undefined) {
			const baselineFirst = kind === 'trainer-state' || !this.#started;
			this.#followed.set(kind, {kind, path: file, stamp: null, moves: null, baselineFirst});
		} else if (followed.path !== file) {
			followed.path = file;
			followed.stamp = null;
		}
	}

	async #discoverCsv(index: CheckpointIndex | null): Promise<void> {
		if (this.#runDir === null) return;
		const skip = new Set((index?.checkpoints ?? []).map(checkpoint => checkpoint.path));
		const newest = await newestFile(await findMetricsCsv(this.#runDir, skip, this.#listings));
		if (newest !== null) this.#follow('metrics-csv', newest);
	}

	/** Follows the candidate written last; looked at again when the index names a newer HF checkpoint. */
	async #pickTrainerState(index: CheckpointIndex | null, due: boolean): Promise<void> {
		const files = trainerStateFiles(index, this.#runDir);
		const key = files.join('\n');
		if (!due && key === this.#stateFiles) return;
		this.#stateFiles = key;
		const newest = await newestFile(files);
		if (newest !== null) this.#follow('trainer-state', newest);
	}

	#apply(followed: Followed, seen: Look, at: number): void {
		if (seen.status === 'missing') followed.stamp = null;
		if (seen.status !== 'read') return;
		const before = followed.stamp;
		followed.stamp = seen.stamp;
		if (followed.kind === 'progress-file') {
			followed.moves = logMoves(followed, before, seen, at);
			return;
		}
		if (!seen.parsed) return;
		const moves = followed.moves;
		if (moves === null) {
			followed.moves = followed.baselineFirst
				? baseline(followed.kind, followed.path, seen.step)
				: moved(baseline(followed.kind, followed.path, null), at, seen.step);
			return;
		}
		const higher = seen.step !== null && seen.step > (moves.step ?? -1);
		// A metrics.csv made anew (another inode, or another version dir) starts its steps again: the job wrote it.
		const madeAnew =
			followed.kind === 'metrics-csv' &&
			(moves.path !== followed.path || (before !== null && before.ino !== seen.stamp.ino)) &&
			seen.step !== moves.step;
		if (higher || madeAnew) {
			const restarted = madeAnew && !higher ? {...moves, marks: []} : moves;
			followed.moves = moved(restarted, at, seen.step, followed.path);
		} else if (moves.path !== followed.path) followed.moves = {...moves, path: followed.path};
	}

	/** Makes the signal list and the problems; true when either changed (else the same objects stay). */
	#publish(problem: string | null): boolean {
		const signals: StepSignal[] = [];
		const checkpoints = this.#checkpoints?.moves;
		if (checkpoints != null) signals.push(signalOf(checkpoints));
		for (const kind of ORDER) {
			const moves = this.#followed.get(kind)?.moves;
			if (moves != null) signals.push(signalOf(moves));
		}
		let changed = false;
		if (!sameSignals(signals, this.#signals)) {
			this.#signals = signals;
			changed = true;
		}
		if ((this.#problems[0] ?? null) !== problem) {
			this.#problems = problem === null ? [] : [problem];
			changed = true;
		}
		return changed;
	}
}

/** A log moves when it grows; made anew (another inode) with bytes in it, it moved too. A shrink is not a move. */
function logMoves(followed: Followed, before: FileStamp | null, seen: Look & {status: 'read'}, at: number): Moves {
	const step = seen.step;
	const moves = followed.moves;
	if (moves === null) {
		if (followed.baselineFirst || seen.stamp.size === 0) return baseline('progress-file', followed.path, step);
		return moved(baseline('progress-file', followed.path, null), at, step);
	}
	const grew = before === null || before.ino !== seen.stamp.ino ? seen.stamp.size > 0 : seen.stamp.size > before.size;
	return grew ? moved(moves, at, step) : moves;
}

function problemOf(file: string, seen: Look): string | null {
	const shown = shownName(file);
	if (seen.status === 'missing') return `--progress-file ${shown}: not found; followed once it appears`;
	if (seen.status === 'refused') return `--progress-file ${shown}: ${seen.why}; followed once it is one`;
	if (seen.status === 'error') return `--progress-file ${shown}: cannot be read (${seen.why})`;
	return null;
}
