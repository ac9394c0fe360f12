import type {NodeView} from '../fleet/node-state.js';
import type {SignalName} from '../ranks/signals.js';
import type {SignalAction} from '../session/actions.js';
import type {DetailEffect, DetailEvent, StacksEffect} from './detail-view.js';
import type {KeyInfo} from './keymap.js';
import type {SendEffect, SendEvent} from './send-flow.js';
import type {RankRef} from './targets.js';

// What flows through the TUI's one reducer (state.ts), on the list of nodes and in a node's view alike: the events
// that come in (keys with the context they arrive in, the results of what keys asked for) and the effects it queues
// for the app to run.

export type Effect =
	/** Suspend: stop the process as Ctrl-Z would outside raw mode (hooks/use-suspend.ts); the state stays as it is. */
	| {readonly kind: 'quit' | 'suspend'}
	| SendEffect
	/** Read and analyse the memory log, as report lines this wide. */
	| {readonly kind: 'analyze'; readonly width: number}
	| DetailEffect
	| StacksEffect;

/** What every key needs to know of the session. */
interface SessionContext {
	readonly readonly: boolean;
	/** The signal each action sends (the settings). */
	readonly signals: Readonly<Record<SignalAction, SignalName>>;
	/** The open confirm box's body rows and how many of them are in sight (box-text.ts confirmRows): how far it scrolls. */
	readonly confirm?: {readonly lines: number; readonly rows: number};
	/** How far `[` scrolls the alerts pane (panes/alert-window.ts alertsScrollMax); absent: it does not scroll. */
	readonly alertsScrollMax?: number;
	/** Epoch ms. */
	readonly now: number;
}

/** What the reducer needs to know of a node's view (the one-node screen) when a key comes in. */
export interface KeyContext extends SessionContext {
	/** The rank rows, job by job, in display order: each one's pid and job. */
	readonly ranks: readonly RankRef[];
	/** Rows a page moves in the ranks list. */
	readonly page: number;
	/** Lines of the analysis box's text area. */
	readonly analysisRows: number;
	/** Rows the help lists (keys and notes, wrapped as its box wraps them): how far it scrolls. */
	readonly helpLines: number;
	/** Columns the analysis report is laid out for. */
	readonly width: number;
	/** A node's view under the list of nodes (traintop --hosts): its keys (Esc back) work. */
	readonly fleet?: boolean;
}

/** What the reducer needs to know of the list of nodes when a key comes in. */
export interface NodesKeyContext extends SessionContext {
	/** The nodes' names in the order drawn. */
	readonly nodes: readonly string[];
	/** Rows a page moves in the nodes list. */
	readonly page: number;
	/** Rows the help lists (wrapped as its box wraps them), and the rows its box shows: how far it scrolls. */
	readonly helpLines: number;
	readonly helpRows: number;
	/** The nodes as the fleet sees them now: s and e find the cursor node's job and its other nodes here. */
	readonly fleet: readonly NodeView[];
}

export type UiEvent =
	/**
	 * A key press, resolved against the mode it arrives in (not the mode of the last frame), in the view its context
	 * was made for: a key made for the list of nodes that arrives once a node's view is open is dropped.
	 */
	| {
			readonly type: 'input';
			readonly input: string;
			readonly key: KeyInfo;
			readonly context: KeyContext | NodesKeyContext;
	  }
	/** The app took the first `count` queued effects to run them. */
	| {readonly type: 'effects-taken'; readonly count: number}
	| {readonly type: 'analysis-loaded'; readonly lines: readonly string[]}
	| {readonly type: 'analysis-failed'; readonly message: string}
	| SendEvent
	| DetailEvent;
