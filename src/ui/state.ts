import {outcomeLine} from '../ranks/preview.js';
import type {SendResult} from '../ranks/send.js';
import type {SignalName} from '../ranks/signals.js';
import type {SignalAction} from '../session/actions.js';
import type {SaveStatus} from './panes/CheckpointsPane.js';
import {type Action, type KeyInfo, type Mode, resolveKey} from './keymap.js';
import {clampScroll} from './scroll.js';

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
	/** Index of the selected rank row. */
	readonly cursor: number;
	/** PIDs marked as targets; none marked = every rank. */
	readonly marked: ReadonlySet<number>;
	/** The confirm box's action and highlighted button (Cancel first, always). */
	readonly confirm: {readonly action: SignalAction; readonly choice: Choice} | null;
	/** First line shown of the analysis overlay. */
	readonly scroll: number;
	readonly saveStatus: SaveStatus | null;
	/** What the last send did, rank by rank. */
	readonly result: TextView | null;
	readonly analysis: TextView | null;
	/** A short message on the key bar (a key that had nothing to act on), shown until `until` (epoch ms). */
	readonly notice: {readonly text: string; readonly until: number} | null;
	/** Effects asked for and not yet taken by the app, oldest first. */
	readonly effects: readonly Effect[];
}

export const INITIAL_STATE: UiState = {
	mode: 'main',
	cursor: 0,
	marked: new Set(),
	confirm: null,
	scroll: 0,
	saveStatus: null,
	result: null,
	analysis: null,
	notice: null,
	effects: [],
};

export type Effect =
	| {readonly kind: 'quit'}
	/** Send the action's signal to these PIDs (each re-checked against the latest rank set). */
	| {readonly kind: 'send'; readonly action: SignalAction; readonly pids: readonly number[]}
	/** Read and analyse the memory log, as report lines this wide. */
	| {readonly kind: 'analyze'; readonly width: number};

/** What the reducer needs to know of the screen and the session when a key comes in. */
export interface KeyContext {
	/** PIDs of the rank rows, in display order. */
	readonly rankPids: readonly number[];
	/** Rows a page moves in the ranks list. */
	readonly page: number;
	/** Lines of the analysis box's text area. */
	readonly analysisRows: number;
	/** Columns the analysis report is laid out for. */
	readonly width: number;
	readonly readonly: boolean;
	/** The signal each action sends (the settings). */
	readonly signals: Readonly<Record<SignalAction, SignalName>>;
	/** Epoch ms. */
	readonly now: number;
}

export type UiEvent =
	/** A key press, resolved against the mode it arrives in (not the mode of the last frame). */
	| {readonly type: 'input'; readonly input: string; readonly key: KeyInfo; readonly context: KeyContext}
	/** The app took the first `count` queued effects to run them. */
	| {readonly type: 'effects-taken'; readonly count: number}
	/** A send ran: each rank's outcome; `watching` when a run dir is watched for the checkpoint. */
	| {
			readonly type: 'sent';
			readonly action: SignalAction;
			readonly signal: SignalName;
			readonly results: readonly SendResult[];
			readonly sentAt: string;
			readonly watching: boolean;
	  }
	/** The save's checkpoint appeared (its name), or did not within the timeout (null). */
	| {
			readonly type: 'save-finished';
			readonly signal: SignalName;
			readonly checkpoint: string | null;
			readonly seconds: number;
			readonly timeoutS: number;
	  }
	| {readonly type: 'analysis-loaded'; readonly lines: readonly string[]}
	| {readonly type: 'analysis-failed'; readonly message: string};

const ANALYSIS_TITLE = "Analysis of this run's memory log";
const NOTICE_MS = 5000;

const clamp = (value: number, count: number): number => Math.max(0, Math.min(value, count - 1));

export function signalWord(action: SignalAction, signal: SignalName): string {
	return `${signal} (${action === 'save' ? 'save' : 'emergency checkpoint'})`;
}

function outcomeTitle(action: SignalAction, signal: SignalName, results: readonly SendResult[]): string {
	const counts = new Map<string, number>();
	for (const r of results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
	const parts = [...counts].map(([outcome, n]) => `${outcome} ${n}`);
	return `${signalWord(action, signal)}: ${parts.join(', ')}`;
}

/** The PIDs a signal goes to: the marked ranks still present, or every rank when none is. */
export function targetPids(state: UiState, rankPids: readonly number[]): number[] {
	const marked = rankPids.filter(pid => state.marked.has(pid));
	return marked.length > 0 ? marked : [...rankPids];
}

function moveBy(state: UiState, delta: number, context: KeyContext): UiState {
	if (state.mode === 'analysis') {
		const lines = state.analysis?.lines.length ?? 0;
		// The analysis scrolls no further than its last page.
		return {...state, scroll: clampScroll(state.scroll + delta, lines, context.analysisRows)};
	}
	return {...state, cursor: clamp(state.cursor + delta, context.rankPids.length)};
}

function withEffect(state: UiState, effect: Effect): UiState {
	return {...state, effects: [...state.effects, effect]};
}

/** The send a confirm box asked for: the box closes on the result box, filled in when the send has run. */
function send(state: UiState, context: KeyContext): UiState {
	if (!state.confirm) return state;
	const {action} = state.confirm;
	const sending = {title: `sending ${signalWord(action, context.signals[action])}…`, lines: []};
	return withEffect(
		{...state, mode: 'result', confirm: null, result: sending},
		{kind: 'send', action, pids: targetPids(state, context.rankPids)},
	);
}

function onKey(state: UiState, action: Action, context: KeyContext): UiState {
	switch (action) {
		case 'quit':
			return withEffect(state, {kind: 'quit'});
		case 'up':
			return moveBy(state, -1, context);
		case 'down':
			return moveBy(state, 1, context);
		case 'page-up':
			return moveBy(state, -(state.mode === 'analysis' ? context.analysisRows : context.page), context);
		case 'page-down':
			return moveBy(state, state.mode === 'analysis' ? context.analysisRows : context.page, context);
		case 'mark': {
			const pid = context.rankPids[clamp(state.cursor, context.rankPids.length)];
			if (pid === undefined) return state;
			const marked = new Set(state.marked);
			if (marked.has(pid)) marked.delete(pid);
			else marked.add(pid);
			// The cursor moves on, so marking several ranks is space, space, space.
			return {...state, marked, cursor: clamp(state.cursor + 1, context.rankPids.length)};
		}
		case 'save':
		case 'emergency':
			// Said, not silently ignored: the user pressed a key that matters, and a confirm box would list no target.
			if (context.rankPids.length === 0) {
				return {
					...state,
					notice: {
						text: 'no ranks found: nothing to signal (see RANKS; --pid or --match pick the job)',
						until: context.now + NOTICE_MS,
					},
				};
			}
			return {...state, mode: 'confirm', confirm: {action, choice: 'cancel'}};
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
			return {...state, mode: 'help'};
		case 'analyze':
			return withEffect(
				{...state, mode: 'analysis', scroll: 0, analysis: {title: ANALYSIS_TITLE, lines: ['reading the log…']}},
				{kind: 'analyze', width: context.width},
			);
	}
}

function onSent(state: UiState, event: Extract<UiEvent, {type: 'sent'}>): UiState {
	const {action, signal, results, sentAt} = event;
	const result = {title: outcomeTitle(action, signal, results), lines: results.map(outcomeLine)};
	if (!results.some(r => r.outcome === 'sent')) return {...state, result};
	const saveStatus: SaveStatus = event.watching
		? {text: `waiting for checkpoint… (${signal} sent ${sentAt})`, level: 'ok'}
		: {text: `${signal} sent ${sentAt}; no RUN_DIR given, so no checkpoint to wait for`, level: 'warn'};
	return {...state, result, saveStatus};
}

export function reduce(state: UiState, event: UiEvent): UiState {
	switch (event.type) {
		case 'input': {
			const action = resolveKey(event.input, event.key, state.mode, event.context.readonly);
			return action === null ? state : onKey(state, action, event.context);
		}
		case 'effects-taken':
			return {...state, effects: state.effects.slice(event.count)};
		case 'sent':
			return onSent(state, event);
		case 'save-finished':
			return {
				...state,
				saveStatus: event.checkpoint
					? {text: `saved ${event.checkpoint} in ${event.seconds} s`, level: 'ok'}
					: {
							text: `no new checkpoint ${event.timeoutS} s after ${event.signal}: check the job's log`,
							level: 'critical',
						},
			};
		case 'analysis-loaded':
			return {...state, analysis: {title: ANALYSIS_TITLE, lines: event.lines}};
		case 'analysis-failed':
			return {...state, analysis: {title: 'Analysis', lines: [`cannot analyse: ${event.message}`]}};
	}
}
