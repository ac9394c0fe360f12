import {detailAnswered} from './detail-view.js';
import {resolveKey} from './keymap.js';
import {onSendEvent} from './send-flow.js';
import {onNodeKey} from './state-node.js';
import {onNodesKey} from './state-nodes.js';
import type {KeyContext, NodesKeyContext, UiEvent} from './ui-events.js';
import {ANALYSIS_TITLE, type UiState} from './ui-state.js';

// Every way the TUI's one state (ui-state.ts) changes, on the list of nodes and in a node's view: key presses and the
// results of what keys asked for (a send, a save confirmed or timed out, an analysis read) all come in as events.
// A pure function, tested without Ink. What must happen outside the screen (quit, send, read the log) is queued as
// an effect for the app to run; the reducer never touches the OS.

export type {TextView} from './send-flow.js';
export type {Effect, KeyContext, NodesKeyContext, UiEvent} from './ui-events.js';
export {cursorIndex} from './state-node.js';
export {nodeCursor} from './state-nodes.js';
export {INITIAL_STATE, NODES_INITIAL, type UiState} from './ui-state.js';

const forNodes = (context: KeyContext | NodesKeyContext): context is NodesKeyContext => 'nodes' in context;

export function reduce(state: UiState, event: UiEvent): UiState {
	switch (event.type) {
		case 'input': {
			const {context} = event;
			// A key made for the other view (typed as Enter or Esc switched views) means nothing in this one.
			if (forNodes(context) !== (state.view === 'nodes')) return state;
			const mode = state.view === 'nodes' && state.mode === 'main' ? 'nodes' : state.mode;
			const fleet = forNodes(context) || context.fleet === true;
			const action = resolveKey(event.input, event.key, mode, context.readonly, fleet);
			if (action === null) return state;
			return forNodes(context) ? onNodesKey(state, action, context) : onNodeKey(state, action, context);
		}
		case 'effects-taken':
			return {...state, effects: state.effects.slice(event.count)};
		case 'analysis-loaded':
			return {...state, analysis: {title: ANALYSIS_TITLE, lines: event.lines}};
		case 'analysis-failed':
			return {...state, analysis: {title: 'Analysis', lines: [`cannot analyse: ${event.message}`]}};
		case 'detail-loaded':
		case 'detail-failed':
			return {...state, detail: detailAnswered(state.detail, event)};
		default:
			return {...state, ...onSendEvent(state, event)};
	}
}
