import type {RankRef} from './targets.js';
import {printable} from '../format/printable.js';

// The rank detail box's part of the UI state (state.ts): Enter on a rank opens it and asks for one
// read of /proc (the 'detail' effect, run by hooks/use-ui-effects.ts); the answer fills it. Kept
// apart so that the reducer stays one screen of cases.

/** The rank detail box: whose it is, and its text. */
export interface DetailView {
	readonly pid: number;
	readonly title: string;
	readonly lines: readonly string[];
}

/** Read the rank with this pid in the latest snapshot, as detail lines `width` columns wide. */
export interface DetailEffect {
	readonly kind: 'detail';
	readonly pid: number;
	readonly width: number;
}

/** Read where the rank with this pid is (its threads, their Python frames with py-spy), lines `width` wide. */
export interface StacksEffect {
	readonly kind: 'stacks';
	readonly pid: number;
	readonly width: number;
}

export type DetailEvent =
	| {readonly type: 'detail-loaded'; readonly pid: number; readonly title: string; readonly lines: readonly string[]}
	/** The rank is gone: it left the snapshot, or /proc no longer has it (`message` says which). */
	| {readonly type: 'detail-failed'; readonly pid: number; readonly message: string};

export const NO_RANK_TO_SHOW = 'no ranks found: no rank to show (see RANKS; --pid or --match pick the job)';

/** The box as Enter opens it on `rank` (the cursor's), and the read it asks for; null without a rank. */
export function openDetail(
	rank: RankRef | undefined,
	width: number,
): {readonly view: DetailView; readonly effect: DetailEffect} | null {
	if (rank === undefined) return null;
	return {
		view: {pid: rank.pid, title: `pid ${rank.pid} · job ${printable(rank.job)}`, lines: ['reading /proc…']},
		effect: {kind: 'detail', pid: rank.pid, width},
	};
}

/** The box once its read is answered; an answer about another rank's box (one since closed) changes nothing. */
export function detailAnswered(view: DetailView | null, event: DetailEvent): DetailView | null {
	if (view === null || view.pid !== event.pid) return view;
	return event.type === 'detail-loaded'
		? {pid: event.pid, title: event.title, lines: event.lines}
		: {...view, lines: [event.message]};
}

/** `w` in a rank's detail: the same box, its text replaced by where the rank is once read (w again reads again). */
export function openStacks(
	view: DetailView | null,
	width: number,
): {readonly view: DetailView; readonly effect: StacksEffect} | null {
	if (view === null) return null;
	return {
		view: {...view, lines: ['reading where it is (/proc, py-spy)…']},
		effect: {kind: 'stacks', pid: view.pid, width},
	};
}
