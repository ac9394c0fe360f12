import type {Action, Mode} from './keymap.js';

// The TUI's own state and how each key action changes it: a pure function, tested without Ink.
// What an action must *do* outside the screen (quit, send a signal, load the analysis) comes
// back as an effect for the app to run; the reducer never touches the OS.

export type SignalAction = 'save' | 'emergency';
export type Choice = 'cancel' | 'confirm';

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
}

export const INITIAL_STATE: UiState = {mode: 'main', cursor: 0, marked: new Set(), confirm: null, scroll: 0};

export type Effect = {readonly kind: 'quit'} | {readonly kind: 'send'; readonly action: SignalAction} | {readonly kind: 'analyze'};

/** What the reducer needs to know of the screen. */
export interface StepContext {
	/** PIDs of the rank rows, in display order. */
	readonly rankPids: readonly number[];
	/** Rows a page moves. */
	readonly page: number;
}

export interface Step {
	readonly state: UiState;
	readonly effect: Effect | null;
}

const clamp = (value: number, count: number): number => Math.max(0, Math.min(value, count - 1));

function moveBy(state: UiState, delta: number, context: StepContext): UiState {
	if (state.mode === 'analysis') return {...state, scroll: Math.max(0, state.scroll + delta)};
	return {...state, cursor: clamp(state.cursor + delta, context.rankPids.length)};
}

export function step(state: UiState, action: Action, context: StepContext): Step {
	const to = (next: UiState, effect: Effect | null = null): Step => ({state: next, effect});
	switch (action) {
		case 'quit':
			return to(state, {kind: 'quit'});
		case 'up':
			return to(moveBy(state, -1, context));
		case 'down':
			return to(moveBy(state, 1, context));
		case 'page-up':
			return to(moveBy(state, -context.page, context));
		case 'page-down':
			return to(moveBy(state, context.page, context));
		case 'mark': {
			const pid = context.rankPids[clamp(state.cursor, context.rankPids.length)];
			if (pid === undefined) return to(state);
			const marked = new Set(state.marked);
			if (marked.has(pid)) marked.delete(pid);
			else marked.add(pid);
			// The cursor moves on, so marking several ranks is space, space, space.
			return to({...state, marked, cursor: clamp(state.cursor + 1, context.rankPids.length)});
		}
		case 'save':
		case 'emergency':
			// Nothing to send to: the confirm box would list no target.
			if (context.rankPids.length === 0) return to(state);
			return to({...state, mode: 'confirm', confirm: {action, choice: 'cancel'}});
		case 'choose-next':
			if (!state.confirm) return to(state);
			return to({...state, confirm: {...state.confirm, choice: state.confirm.choice === 'cancel' ? 'confirm' : 'cancel'}});
		case 'activate':
			if (!state.confirm) return to(state);
			if (state.confirm.choice === 'cancel') return to({...state, mode: 'main', confirm: null});
			return to({...state, mode: 'result', confirm: null}, {kind: 'send', action: state.confirm.action});
		case 'confirm':
			if (!state.confirm) return to(state);
			return to({...state, mode: 'result', confirm: null}, {kind: 'send', action: state.confirm.action});
		case 'close':
			return to({...state, mode: 'main', confirm: null});
		case 'help':
			return to({...state, mode: 'help'});
		case 'analyze':
			return to({...state, mode: 'analysis', scroll: 0}, {kind: 'analyze'});
	}
}

/** The PIDs a signal goes to: the marked ranks still present, or every rank when none is. */
export function targetPids(state: UiState, rankPids: readonly number[]): number[] {
	const marked = rankPids.filter(pid => state.marked.has(pid));
	return marked.length > 0 ? marked : [...rankPids];
}
