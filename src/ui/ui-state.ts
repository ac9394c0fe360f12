import type {DetailView} from './detail-view.js';
import type {HistoryWindow} from './history/window.js';
import type {Mode} from './keymap.js';
import type {NodeOrder} from './fleet/node-rows.js';
import type {RankSort} from './rank-sort.js';
import {NO_SEND, type SendFlowState, type TextView} from './send-flow.js';
import type {Effect} from './ui-events.js';

// The TUI's whole state, for one node and many: the list of nodes and a node's full view are two views of it
// (`view`), the boxes over them (help, confirm, a send's result…) one `mode`, and s/e one send flow (send-flow.ts)
// whether the target is this node's ranks or a job across its nodes. How it changes: state.ts.

/** The list of nodes (traintop --hosts), or one node's full view: the one-node screen is a fleet of one. */
export type View = 'nodes' | 'node';

export interface UiState extends SendFlowState {
	readonly view: View;
	/** The box over the view ('main': none); the list of nodes has help, confirm and result only. */
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
	/** First line shown of the box that scrolls (analysis, rank detail, help, confirm). */
	readonly scroll: number;
	/** Alerts pane entries skipped from the newest: 0 shows the newest. */
	readonly alertsScroll: number;
	readonly analysis: TextView | null;
	/** The rank detail box (Enter on a rank). */
	readonly detail: DetailView | null;
	/** Index of the selected node among the rows drawn (where `cursorNode` is gone). */
	readonly nodeCursor: number;
	/** The selected node's name: the cursor stays on it as rows move under it (worst first re-sorts them). */
	readonly cursorNode: string | null;
	readonly order: NodeOrder;
	/** The node whose view is open under the list of nodes (view `node`); null on the one-node screen. */
	readonly open: string | null;
	/** Effects asked for and not yet taken by the app, oldest first. */
	readonly effects: readonly Effect[];
}

/** A node's view as it opens: its cursor on the first rank, no marks, no box. */
const NODE_VIEW = {
	mode: 'main',
	cursor: 0,
	cursorPid: null,
	sort: 'rank',
	window: '5m',
	marked: new Set<number>(),
	scroll: 0,
	alertsScroll: 0,
	analysis: null,
	detail: null,
} as const;

/** The one-node screen: one node's view, no list of nodes. */
export const INITIAL_STATE: UiState = {
	view: 'node',
	...NODE_VIEW,
	nodeCursor: 0,
	cursorNode: null,
	order: 'given',
	open: null,
	effects: [],
	...NO_SEND,
};

/** The many-node screen: the list of nodes first. */
export const NODES_INITIAL: UiState = {...INITIAL_STATE, view: 'nodes'};

/** `name`'s view opened from the list of nodes, as fresh as a node's view opens; the last send's status kept. */
export function openNode(state: UiState, name: string): UiState {
	return {...state, ...NODE_VIEW, view: 'node', open: name, cursorNode: name};
}

/** Back from a node's view to the list of nodes, the cursor still on that node. */
export function backToNodes(state: UiState): UiState {
	return {...state, view: 'nodes', mode: 'main', open: null, scroll: 0, alertsScroll: 0, confirm: null};
}

export function withEffect(state: UiState, effect: Effect): UiState {
	return {...state, effects: [...state.effects, effect]};
}

export const ANALYSIS_TITLE = "Analysis of this run's memory log";
/** How long a key's notice stays on the key bar. */
export const NOTICE_MS = 5000;
