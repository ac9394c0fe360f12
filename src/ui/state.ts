import {outcomeLine} from '../ranks/preview.js';
import {printable} from '../format/printable.js';
import type {SignalAction} from '../session/actions.js';
import {type DetailView, detailAnswered, NO_RANK_TO_SHOW, openDetail} from './detail-view.js';
import type {SaveStatus} from './panes/CheckpointsPane.js';
import {type Action, type Mode, resolveKey} from './keymap.js';
import {type HistoryWindow, nextWindow} from './history/window.js';
import {nextSort, type RankSort} from './rank-sort.js';
import {wrapLines} from './box-text.js';
import {clampScroll} from './scroll.js';
import {jobExitedStatus, outcomeTitle, saveFinishedStatus, sentStatus, signalWord} from './send-status.js';
import {type Target, targetOf, toggleMark} from './targets.js';

// The TUI's whole state and every way it changes: key presses and the results of what keys asked
// for (a send, a save confirmed or timed out, an analysis read) all come in as events. A pure
// function, tested without Ink. What must happen outside the screen (quit, send, read the log)
// is queued as an effect for the app to run; the reducer never touches the OS.

export type Choice = 'cancel' | 'confirm';

/** A box of text lines: a send's outcome, the analysis. */
export interface TextView {
	readonly title: string;
	readonly lines: readonly string[];
}

export interface UiState {
	readonly mode: Mode;
	/** Index of the selected rank among all ranks, job by job (where cursorPid is gone). */
	readonly cursor: number;
	/**
	 * The selected rank's pid: the cursor stays on it when ranks above it come or go (a rank of another job
	 * exits), so the row under the cursor, which s/e act on, does not change by itself.
	 */
	readonly cursorPid: number | null;
	/** The ranks table's order (within each job). */
	readonly sort: RankSort;
	/** The history charts' time window. */
	readonly window: HistoryWindow;
	/** PIDs marked as targets, all of one job; none marked = every rank of the cursor's job. */
	readonly marked: ReadonlySet<number>;
	/**
	 * The confirm box's action, its highlighted button (Cancel first, always) and its target, fixed when the
	 * box opened: what is sent is what the box named, even if the list moves under the cursor meanwhile.
	 */
	readonly confirm: {readonly action: SignalAction; readonly choice: Choice; readonly target: Target} | null;
	/** First line shown of the analysis or rank detail box. */
	readonly scroll: number;
	/** Alerts pane entries skipped from the newest: 0 shows the newest. */
	readonly alertsScroll: number;
	readonly saveStatus: SaveStatus | null;
	/** Epoch ms of the send saveStatus follows: what a late answer about an earlier send is told apart by. */
	readonly saveFor: number | null;
	/** What the last send did, rank by rank. */
	readonly result: TextView | null;
	readonly analysis: TextView | null;
	/** The rank detail box (Enter on a rank). */
	readonly detail: DetailView | null;
	/** A short message on the key bar (a key that had nothing to act on), shown until `until` (epoch ms). */
	readonly notice: {readonly text: string; readonly until: number} | null;
	/** Effects asked for and not yet taken by the app, oldest first. */
	readonly effects: readonly Effect[];
}

export const INITIAL_STATE: UiState = {
	mode: 'main',
	cursor: 0,
	cursorPid: null,
	sort: 'rank',
	window: '5m',
	marked: new Set(),
	confirm: null,
	scroll: 0,
	alertsScroll: 0,
	saveStatus: null,
	saveFor: null,
	result: null,
	analysis: null,
	detail: null,
	notice: null,
	effects: [],
};

import type {Effect, KeyContext, UiEvent} from './ui-events.js';

export type {Effect, KeyContext, UiEvent};

const ANALYSIS_TITLE = "Analysis of this run's memory log";
const NOTICE_MS = 5000;

const clamp = (value: number, count: number): number => Math.max(0, Math.min(value, count - 1));

/** Where the cursor is in `ranks`: on its pid while that rank is there, else at its index (clamped). */
export function cursorIndex(state: UiState, ranks: readonly {readonly pid: number}[]): number {
	const at = state.cursorPid === null ? -1 : ranks.findIndex(r => r.pid === state.cursorPid);
	return at >= 0 ? at : clamp(state.cursor, ranks.length);
}

function cursorAt(state: UiState, index: number, ranks: readonly {readonly pid: number}[]): UiState {
	const cursor = clamp(index, ranks.length);
	return {...state, cursor, cursorPid: ranks[cursor]?.pid ?? null};
}

/** The modes whose box scrolls: ↑↓ PgUp PgDn move its text, not the cursor. */
const scrolls = (mode: UiState['mode']): boolean =>
	mode === 'analysis' || mode === 'detail' || mode === 'help' || mode === 'confirm';

/** Rows of the scrolling box the mode shows, its lines wrapped as the box wraps them (box-text.ts). */
function boxLines(state: UiState, context: KeyContext): number {
	if (state.mode === 'help') return context.helpLines;
	if (state.mode === 'confirm') return context.confirm?.lines ?? 0;
	return wrapLines((state.mode === 'analysis' ? state.analysis : state.detail)?.lines ?? [], context.width).length;
}

/** Rows of it in sight at once: a page. */
const boxRows = (state: UiState, context: KeyContext): number =>
	state.mode === 'confirm' ? (context.confirm?.rows ?? 1) : context.analysisRows;

function moveBy(state: UiState, delta: number, context: KeyContext): UiState {
	if (scrolls(state.mode)) {
		// The box scrolls no further than its last page.
		return {...state, scroll: clampScroll(state.scroll + delta, boxLines(state, context), boxRows(state, context))};
	}
	return cursorAt(state, cursorIndex(state, context.ranks) + delta, context.ranks);
}

function withEffect(state: UiState, effect: Effect): UiState {
	return {...state, effects: [...state.effects, effect]};
}

/** The send a confirm box asked for: the box closes on the result box, filled in when the send has run. */
function send(state: UiState, context: KeyContext): UiState {
	if (!state.confirm) return state;
	const {action, target} = state.confirm;
	const sending = {
		title: `sending ${signalWord(action, context.signals[action])} to job ${printable(target.job)}…`,
		lines: [],
	};
	return withEffect(
		{...state, mode: 'result', confirm: null, result: sending},
		{kind: 'send', action, job: target.job, identities: target.identities},
	);
}

function onKey(state: UiState, action: Action, context: KeyContext): UiState {
	switch (action) {
		case 'quit':
		case 'suspend':
		case 'back':
			return withEffect(state, {kind: action});
		// The many-node screen's own keys: its reducer (fleet/fleet-state.ts) takes them, never this screen.
		case 'open-node':
		case 'order-nodes':
			return state;
		case 'up':
			return moveBy(state, -1, context);
		case 'down':
			return moveBy(state, 1, context);
		case 'page-up':
			return moveBy(state, -(scrolls(state.mode) ? boxRows(state, context) : context.page), context);
		case 'page-down':
			return moveBy(state, scrolls(state.mode) ? boxRows(state, context) : context.page, context);
		case 'mark': {
			if (context.ranks.length === 0) return state;
			const at = cursorIndex(state, context.ranks);
			const marked = toggleMark(context.ranks, at, state.marked);
			// The cursor moves on, so marking several ranks is space, space, space.
			return cursorAt({...state, marked}, at + 1, context.ranks);
		}
		case 'save':
		case 'emergency': {
			const target = targetOf(context.ranks, cursorIndex(state, context.ranks), state.marked);
			// Said, not silently ignored: the user pressed a key that matters, and a confirm box would list no target.
			if (target === null) {
				return {
					...state,
					notice: {
						text: 'no ranks found: nothing to signal (see RANKS; --pid or --match pick the job)',
						until: context.now + NOTICE_MS,
					},
				};
			}
			return {...state, mode: 'confirm', scroll: 0, confirm: {action, choice: 'cancel', target}};
		}
		case 'choose-next':
			if (!state.confirm) return state;
			return {...state, confirm: {...state.confirm, choice: state.confirm.choice === 'cancel' ? 'confirm' : 'cancel'}};
		case 'activate':
			if (!state.confirm) return state;
			if (state.confirm.choice === 'cancel') return {...state, mode: 'main', confirm: null};
			return send(state, context);
		case 'confirm':
			return send(state, context);
		case 'close':
			return {...state, mode: 'main', confirm: null};
		case 'help':
			return {...state, mode: 'help', scroll: 0};
		// The cursor stays on its rank (by pid) as the rows move under it.
		case 'sort': {
			const at = context.ranks[cursorIndex(state, context.ranks)];
			return {...state, sort: nextSort(state.sort), cursorPid: at?.pid ?? state.cursorPid};
		}
		case 'window':
			return {...state, window: nextWindow(state.window)};
		case 'alerts-older':
		case 'alerts-newer': {
			// Never past the oldest entry (as the pane lays them out), so that `]` acts at its first press back.
			const max = context.alertsScrollMax ?? 0;
			const by = action === 'alerts-older' ? 1 : -1;
			return {...state, alertsScroll: Math.max(0, Math.min(max, state.alertsScroll + by))};
		}
		case 'analyze':
			return withEffect(
				{...state, mode: 'analysis', scroll: 0, analysis: {title: ANALYSIS_TITLE, lines: ['reading the log…']}},
				{kind: 'analyze', width: context.width},
			);
		case 'detail': {
			const open = openDetail(context.ranks[cursorIndex(state, context.ranks)], context.width);
			if (open === null) return {...state, notice: {text: NO_RANK_TO_SHOW, until: context.now + NOTICE_MS}};
			return withEffect({...state, mode: 'detail', scroll: 0, detail: open.view}, open.effect);
		}
	}
}

function onSent(state: UiState, event: Extract<UiEvent, {type: 'sent'}>): UiState {
	const {action, signal, job, results} = event;
	const result = {title: outcomeTitle(action, signal, job, results), lines: results.map(outcomeLine)};
	if (!results.some(r => r.outcome === 'sent')) return {...state, result};
	return {...state, result, saveStatus: sentStatus(signal, job, event.sentAt, event.watch), saveFor: event.sentAt};
}

export function reduce(state: UiState, event: UiEvent): UiState {
	switch (event.type) {
		case 'input': {
			const action = resolveKey(event.input, event.key, state.mode, event.context.readonly, event.context.fleet);
			return action === null ? state : onKey(state, action, event.context);
		}
		case 'effects-taken':
			return {...state, effects: state.effects.slice(event.count)};
		case 'sent':
			return onSent(state, event);
		case 'send-skipped':
			return {
				...state,
				result: {
					title: `${signalWord(event.action, event.signal)} to job ${printable(event.job)}: nothing sent`,
					lines: [event.reason],
				},
			};
		// An answer about an earlier send is not news about the last one.
		case 'save-finished':
			return state.saveFor === event.sentAt ? {...state, saveStatus: saveFinishedStatus(event)} : state;
		case 'job-exited':
			return state.saveFor === event.sentAt
				? {...state, saveStatus: jobExitedStatus(event.job, event.signal, event.exit)}
				: state;
		case 'analysis-loaded':
			return {...state, analysis: {title: ANALYSIS_TITLE, lines: event.lines}};
		case 'analysis-failed':
			return {...state, analysis: {title: 'Analysis', lines: [`cannot analyse: ${event.message}`]}};
		case 'detail-loaded':
		case 'detail-failed':
			return {...state, detail: detailAnswered(state.detail, event)};
	}
}
