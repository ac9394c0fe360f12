import type {Action} from './keymap.js';
import {clampScroll} from './scroll.js';
import {pickFleetJob} from './fleet/fleet-job-target.js';
import {alertsScrolled, confirmKey} from './state-node.js';
import type {NodesKeyContext} from './ui-events.js';
import {NOTICE_MS, openNode, type UiState, withEffect} from './ui-state.js';

// The keys of the list of nodes (traintop --hosts): the node cursor (kept on its node as rows move), Enter into a
// node's view, the nodes' order, the help, and s/e on the cursor node's job across every node that runs it. Pure.

const clamp = (value: number, count: number): number => Math.max(0, Math.min(value, count - 1));

/** Where the cursor is among `nodes`: on its node while that node is listed, else at its index (clamped). */
export function nodeCursor(state: UiState, nodes: readonly string[]): number {
	const at = state.cursorNode === null ? -1 : nodes.indexOf(state.cursorNode);
	return at >= 0 ? at : clamp(state.nodeCursor, nodes.length);
}

function moveBy(state: UiState, delta: number, context: NodesKeyContext): UiState {
	if (state.mode === 'help')
		return {...state, scroll: clampScroll(state.scroll + delta, context.helpLines, context.helpRows)};
	// The confirm box scrolls its body: the node under the cursor is not the box's target, and must not move under it.
	if (state.mode === 'confirm')
		return {
			...state,
			scroll: clampScroll(state.scroll + delta, context.confirm?.lines ?? 0, context.confirm?.rows ?? 1),
		};
	const cursor = clamp(nodeCursor(state, context.nodes) + delta, context.nodes.length);
	return {...state, nodeCursor: cursor, cursorNode: context.nodes[cursor] ?? null};
}

/** s or e on the nodes: the box on the cursor node's job, or the notice saying why there is none. */
function openConfirm(state: UiState, action: 'save' | 'emergency', context: NodesKeyContext): UiState {
	const picked = pickFleetJob(context.fleet, context.nodes[nodeCursor(state, context.nodes)]);
	if ('why' in picked)
		return {...state, confirm: null, scroll: 0, notice: {text: picked.why, until: context.now + NOTICE_MS}};
	return {
		...state,
		mode: 'confirm',
		scroll: 0,
		notice: null,
		confirm: {action, choice: 'cancel', target: picked.target},
	};
}

export function onNodesKey(state: UiState, action: Action, context: NodesKeyContext): UiState {
	const page =
		state.mode === 'help' ? context.helpRows : state.mode === 'confirm' ? (context.confirm?.rows ?? 1) : context.page;
	switch (action) {
		case 'quit':
		case 'suspend':
			return withEffect(state, {kind: action});
		case 'up':
			return moveBy(state, -1, context);
		case 'down':
			return moveBy(state, 1, context);
		case 'page-up':
			return moveBy(state, -page, context);
		case 'page-down':
			return moveBy(state, page, context);
		case 'open-node': {
			const name = context.nodes[nodeCursor(state, context.nodes)];
			return name === undefined ? state : openNode(state, name);
		}
		case 'order-nodes':
			// The cursor stays on its node, wherever the new order puts it.
			return {
				...state,
				order: state.order === 'given' ? 'worst' : 'given',
				cursorNode: context.nodes[nodeCursor(state, context.nodes)] ?? state.cursorNode,
			};
		case 'help':
			return {...state, mode: 'help', scroll: 0};
		case 'close':
			return {...state, mode: 'main', confirm: null};
		case 'alerts-older':
		case 'alerts-newer':
			return alertsScrolled(state, action, context.alertsScrollMax);
		case 'save':
		case 'emergency':
			return openConfirm(state, action, context);
		case 'choose-next':
		case 'confirm':
			return confirmKey(state, action, context.signals);
		case 'activate':
			// Enter with no box open, or on Cancel, closes.
			return state.confirm?.choice === 'confirm'
				? confirmKey(state, action, context.signals)
				: {...state, mode: 'main', confirm: null};
		default:
			// The one-node screen's other keys (marks, sorts, a rank's detail) mean nothing on the list of nodes.
			return state;
	}
}
