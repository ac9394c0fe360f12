import type {NodeView} from '../../fleet/node-state.js';
import type {SignalName} from '../../ranks/signals.js';
import type {SignalAction} from '../../session/actions.js';
import {type Action, type KeyInfo, resolveKey} from '../keymap.js';
import {clampScroll} from '../scroll.js';
import {
	type FleetSendEffect,
	type FleetSendEvent,
	type FleetSignalState,
	NO_SIGNAL,
	onSendEvent,
	openConfirm,
	sendingView,
} from './fleet-signal-state.js';
import type {NodeOrder} from './node-rows.js';

// The many-node screen's whole state and every way it changes, as the one-node screen's (state.ts): key presses
// resolved through the one keymap, a node's view left (Esc there), effects queued for the app. Pure; no Ink.

/**
 * The list of nodes, its help, a confirm box or a send's result (s/e on a job across its nodes), or one node's own
 * full view (the one-node App takes the keys there).
 */
export type FleetMode = 'nodes' | 'help' | 'confirm' | 'result' | 'node';

export interface FleetUiState extends FleetSignalState {
	readonly mode: FleetMode;
	/** Index of the selected node among the rows drawn (where `cursorNode` is gone). */
	readonly cursor: number;
	/** The selected node's name: the cursor stays on it as rows move under it (worst first re-sorts them). */
	readonly cursorNode: string | null;
	readonly order: NodeOrder;
	/** The node whose view is open (mode `node`). */
	readonly open: string | null;
	/** First row shown of the help, or of the confirm box's body. */
	readonly scroll: number;
	/** Alerts pane entries skipped from the newest (`[` `]`): 0 shows the newest. */
	readonly alertsScroll: number;
	readonly effects: readonly FleetEffect[];
}

export type FleetEffect = {readonly kind: 'quit' | 'suspend'} | FleetSendEffect;

/** What the reducer needs to know of the screen when a key comes in. */
export interface FleetKeyContext {
	/** The nodes' names in the order drawn. */
	readonly nodes: readonly string[];
	/** Rows a page moves in the nodes list. */
	readonly page: number;
	/** Rows the help lists (wrapped as its box wraps them), and the rows its box shows: how far it scrolls. */
	readonly helpLines: number;
	readonly helpRows: number;
	/** The open confirm box's body rows and how many are in sight (box-text.ts confirmRows): how far it scrolls. */
	readonly confirm?: {readonly lines: number; readonly rows: number};
	/** How far `[` scrolls the alerts pane (panes/alert-window.ts alertsScrollMax); absent: it does not scroll. */
	readonly alertsScrollMax?: number;
	/** The nodes as the fleet sees them now: s and e find the cursor node's job and its other nodes here. */
	readonly fleet: readonly NodeView[];
	readonly readonly: boolean;
	/** The signal each action sends (the settings). */
	readonly signals: Readonly<Record<SignalAction, SignalName>>;
	/** Epoch ms. */
	readonly now: number;
}

export type FleetEvent =
	| {readonly type: 'input'; readonly input: string; readonly key: KeyInfo; readonly context: FleetKeyContext}
	/** Esc in a node's view: back to the nodes, the cursor still on that node. */
	| {readonly type: 'back'}
	| {readonly type: 'effects-taken'; readonly count: number}
	| FleetSendEvent;

export const FLEET_INITIAL: FleetUiState = {
	mode: 'nodes',
	cursor: 0,
	cursorNode: null,
	order: 'given',
	open: null,
	scroll: 0,
	alertsScroll: 0,
	effects: [],
	...NO_SIGNAL,
};

const clamp = (value: number, count: number): number => Math.max(0, Math.min(value, count - 1));

/** Where the cursor is among `nodes`: on its node while that node is listed, else at its index (clamped). */
export function fleetCursor(state: FleetUiState, nodes: readonly string[]): number {
	const at = state.cursorNode === null ? -1 : nodes.indexOf(state.cursorNode);
	return at >= 0 ? at : clamp(state.cursor, nodes.length);
}

function moveBy(state: FleetUiState, delta: number, context: FleetKeyContext): FleetUiState {
	if (state.mode === 'help')
		return {...state, scroll: clampScroll(state.scroll + delta, context.helpLines, context.helpRows)};
	// The confirm box scrolls its body: the node under the cursor is not the box's target, and must not move under it.
	if (state.mode === 'confirm')
		return {
			...state,
			scroll: clampScroll(state.scroll + delta, context.confirm?.lines ?? 0, context.confirm?.rows ?? 1),
		};
	const cursor = clamp(fleetCursor(state, context.nodes) + delta, context.nodes.length);
	return {...state, cursor, cursorNode: context.nodes[cursor] ?? null};
}

/** y in the box: the result box opens, filled in when every node's agent has answered. */
function send(state: FleetUiState, context: FleetKeyContext): FleetUiState {
	if (!state.confirm) return state;
	const {action, target} = state.confirm;
	return {
		...state,
		mode: 'result',
		confirm: null,
		result: sendingView(action, context.signals[action], target.job),
		saveStatus: null,
		exits: [],
		effects: [...state.effects, {kind: 'send', action, target}],
	};
}

function onKey(state: FleetUiState, action: Action, context: FleetKeyContext): FleetUiState {
	const page =
		state.mode === 'help' ? context.helpRows : state.mode === 'confirm' ? (context.confirm?.rows ?? 1) : context.page;
	switch (action) {
		case 'quit':
		case 'suspend':
			return {...state, effects: [...state.effects, {kind: action}]};
		case 'up':
			return moveBy(state, -1, context);
		case 'down':
			return moveBy(state, 1, context);
		case 'page-up':
			return moveBy(state, -page, context);
		case 'page-down':
			return moveBy(state, page, context);
		case 'open-node': {
			const name = context.nodes[fleetCursor(state, context.nodes)];
			return name === undefined ? state : {...state, mode: 'node', open: name, cursorNode: name};
		}
		case 'order-nodes':
			// The cursor stays on its node, wherever the new order puts it.
			return {
				...state,
				order: state.order === 'given' ? 'worst' : 'given',
				cursorNode: context.nodes[fleetCursor(state, context.nodes)] ?? state.cursorNode,
			};
		case 'help':
			return {...state, mode: 'help', scroll: 0};
		case 'close':
			return {...state, mode: 'nodes', confirm: null};
		case 'alerts-older':
		case 'alerts-newer': {
			const by = action === 'alerts-older' ? 1 : -1;
			const max = context.alertsScrollMax ?? 0;
			return {...state, alertsScroll: Math.max(0, Math.min(max, state.alertsScroll + by))};
		}
		case 'save':
		case 'emergency': {
			const opened = openConfirm(action, context.fleet, context.nodes[fleetCursor(state, context.nodes)], context.now);
			return {...state, ...opened, mode: opened.confirm ? 'confirm' : state.mode, scroll: 0};
		}
		case 'choose-next':
			if (!state.confirm) return state;
			return {...state, confirm: {...state.confirm, choice: state.confirm.choice === 'cancel' ? 'confirm' : 'cancel'}};
		case 'activate':
			if (state.confirm?.choice !== 'confirm') return {...state, mode: 'nodes', confirm: null};
			return send(state, context);
		case 'confirm':
			return send(state, context);
		default:
			// The one-node screen's other keys (marks, sorts, a rank's detail) mean nothing on the list of nodes.
			return state;
	}
}

export function reduceFleet(state: FleetUiState, event: FleetEvent): FleetUiState {
	switch (event.type) {
		case 'input': {
			if (state.mode === 'node') return state;
			const action = resolveKey(event.input, event.key, state.mode, event.context.readonly, true);
			return action === null ? state : onKey(state, action, event.context);
		}
		case 'back':
			return {...state, mode: 'nodes', open: null};
		case 'effects-taken':
			return {...state, effects: state.effects.slice(event.count)};
		default:
			return {...state, ...onSendEvent(state, event)};
	}
}
