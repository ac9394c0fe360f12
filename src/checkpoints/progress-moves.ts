// One step signal's history as traintop saw it: when it moved, the intervals between its moves, and the time per
// step between the moves that changed the step. Pure: the reader (progress-reader.ts) says what it read and when.
// The first reading of a file is its baseline, not a move: traintop cannot tell when it moved before it looked.

import type {StepSignal, StepSource} from '../core/progress-types.js';

/** Intervals kept: the medians are over the last MAX_INTERVALS. */
const MAX_INTERVALS = 8;

interface Mark {
	readonly at: number;
	readonly step: number;
}

export interface Moves {
	readonly source: StepSource;
	readonly path: string;
	/** The newest step named; null: none yet. */
	readonly step: number | null;
	readonly movedAt: number | null;
	/** Epoch ms of the last MAX_INTERVALS + 1 moves, oldest first. */
	readonly times: readonly number[];
	/** The moves that changed the step, oldest first (the last MAX_INTERVALS + 1). */
	readonly marks: readonly Mark[];
}

/** A signal's history at its baseline: what it names now, never moved. */
export function baseline(source: StepSource, path: string, step: number | null): Moves {
	return {source, path, step, movedAt: null, times: [], marks: []};
}

function keepLast<T>(list: readonly T[], item: T): T[] {
	return [...list, item].slice(-(MAX_INTERVALS + 1));
}

/**
 * The history after a move seen at `at`, naming `step` (null: the move named none; the last step named stays) at
 * `path` (a followed file may change: a newer checkpoint's trainer_state.json).
 */
export function moved(moves: Moves, at: number, step: number | null, path: string = moves.path): Moves {
	const changed = step !== null && step !== moves.step;
	return {
		...moves,
		path,
		step: step ?? moves.step,
		movedAt: at,
		times: keepLast(moves.times, at),
		marks: changed ? keepLast(moves.marks, {at, step}) : moves.marks,
	};
}

/** The median of a list of numbers; null when empty. */
function median(values: readonly number[]): number | null {
	if (values.length === 0) return null;
	const sorted = [...values].sort((a, b) => a - b);
	const middle = sorted.length >> 1;
	return sorted.length % 2 === 1 ? (sorted[middle] ?? null) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Seconds between consecutive moves; null before two moves. */
function intervalS(times: readonly number[]): number | null {
	const gaps = times.slice(1).map((at, index) => (at - (times[index] ?? at)) / 1000);
	return median(gaps);
}

/** Seconds per step between consecutive step-changing moves that went forward; null before two such. */
function stepS(marks: readonly Mark[]): number | null {
	const rates: number[] = [];
	for (let at = 1; at < marks.length; at++) {
		const before = marks[at - 1];
		const now = marks[at];
		if (before === undefined || now === undefined || now.step <= before.step) continue;
		rates.push((now.at - before.at) / 1000 / (now.step - before.step));
	}
	return median(rates);
}

export function signalOf(moves: Moves): StepSignal {
	return {
		source: moves.source,
		path: moves.path,
		step: moves.step,
		movedAt: moves.movedAt,
		intervalS: intervalS(moves.times),
		stepS: stepS(moves.marks),
	};
}

/** Whether two signal lists say the same (the reader then hands back the previous array object). */
export function sameSignals(a: readonly StepSignal[], b: readonly StepSignal[]): boolean {
	if (a.length !== b.length) return false;
	return a.every((one, index) => {
		const other = b[index];
		return (
			other !== undefined &&
			one.source === other.source &&
			one.path === other.path &&
			one.step === other.step &&
			one.movedAt === other.movedAt &&
			one.intervalS === other.intervalS &&
			one.stepS === other.stepS
		);
	});
}
