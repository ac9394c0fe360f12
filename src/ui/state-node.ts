import {wrapLines} from './box-text.js';
import {NO_RANK_TO_SHOW, openDetail, openStacks} from './detail-view.js';
import {nextWindow} from './history/window.js';
import type {Action} from './keymap.js';
import {nextSort} from './rank-sort.js';
import {clampScroll} from './scroll.js';
import {confirmed, sendEffect} from './send-flow.js';
import {targetOf, toggleMark} from './targets.js';
import type {KeyContext} from './ui-events.js';
import {ANALYSIS_TITLE, backToNodes, NOTICE_MS, type UiState, withEffect} from './ui-state.js';

// The keys of a node's view (the one-node screen, or a node opened from the list of nodes): the rank cursor and
// marks, s/e on the cursor's job, the boxes (help, analysis, a rank's detail), the sort, the charts' window. Pure.

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

/** `y`: the box closes on the result box, filled in when the send has run. */
function send(state: UiState, signals: KeyContext['signals']): UiState {
	if (!state.confirm) return state;
	const {action, target} = state.confirm;
	return withEffect({...state, ...confirmed(state, signals[action]), mode: 'result'}, sendEffect(action, target));
}

/** The keys every view's confirm box shares: Tab, Enter and y. */
export function confirmKey(
	state: UiState,
	action: 'choose-next' | 'activate' | 'confirm',
	context: KeyContext['signals'],
): UiState {
	if (!state.confirm) return state;
	if (action === 'choose-next')
		return {...state, confirm: {...state.confirm, choice: state.confirm.choice === 'cancel' ? 'confirm' : 'cancel'}};
	if (action === 'activate' && state.confirm.choice === 'cancel') return {...state, mode: 'main', confirm: null};
	return send(state, context);
}

export function onNodeKey(state: UiState, action: Action, context: KeyContext): UiState {
	switch (action) {
		case 'quit':
		case 'suspend':
			return withEffect(state, {kind: action});
		case 'back':
			return backToNodes(state);
		// The list of nodes' own keys: they mean nothing in a node's view.
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
		case 'emergency':
		case 'drill': {
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
			// A drill is a save whose outcome is judged: the save signal, the same box, its own words.
			const confirm =
				action === 'drill'
					? {action: 'save' as const, drill: true, choice: 'cancel' as const, target}
					: {action, choice: 'cancel' as const, target};
			return {...state, mode: 'confirm', scroll: 0, confirm};
		}
		case 'choose-next':
		case 'activate':
		case 'confirm':
			return confirmKey(state, action, context.signals);
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
		case 'alerts-newer':
			return alertsScrolled(state, action, context.alertsScrollMax);
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
		case 'where': {
			const open = openStacks(state.detail, context.width);
			return open === null ? state : withEffect({...state, scroll: 0, detail: open.view}, open.effect);
		}
	}
}

/** `[` `]`: never past the oldest entry (as the pane lays them out), so that `]` acts at its first press back. */
export function alertsScrolled(state: UiState, action: 'alerts-older' | 'alerts-newer', max = 0): UiState {
	const by = action === 'alerts-older' ? 1 : -1;
	return {...state, alertsScroll: Math.max(0, Math.min(max, state.alertsScroll + by))};
}
