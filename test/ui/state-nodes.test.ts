import {describe, expect, it} from 'vitest';
import type {KeyInfo} from '../../src/ui/keymap.js';
import {
	INITIAL_STATE,
	NODES_INITIAL as FLEET_INITIAL,
	type NodesKeyContext,
	nodeCursor,
	reduce,
	type UiState,
} from '../../src/ui/state.js';
import {keyContext, nodesKeyContext} from './key-context.js';

// The one reducer on the list of nodes: keys through the one keymap, the cursor kept on its node, Enter into a node's
// view and Esc back, the help.

const context = (nodes: readonly string[]): NodesKeyContext => nodesKeyContext(nodes);

function press(state: UiState, nodes: readonly string[], input: string, key: KeyInfo = {}): UiState {
	return reduce(state, {type: 'input', input, key, context: context(nodes)});
}

const NODES = ['node1', 'node2', 'node3', 'node4'];

describe('the list of nodes', () => {
	it('↓ j PgDn move the cursor, clamped to the nodes', () => {
		let state = press(FLEET_INITIAL, NODES, '', {downArrow: true});
		state = press(state, NODES, 'j');
		expect(nodeCursor(state, NODES)).toBe(2);
		state = press(state, NODES, '', {pageDown: true});
		expect(nodeCursor(state, NODES)).toBe(3);
		state = press(state, NODES, 'k');
		expect(state.cursorNode).toBe('node3');
	});

	it('the cursor stays on its node when the rows move (worst first), and o keeps it there', () => {
		let state = press(FLEET_INITIAL, NODES, 'j');
		expect(state.cursorNode).toBe('node2');
		state = press(state, NODES, 'o');
		expect(state.order).toBe('worst');
		expect(nodeCursor(state, ['node4', 'node2', 'node1', 'node3'])).toBe(1);
		expect(press(state, NODES, 'o').order).toBe('given');
	});

	it("Enter opens the node under the cursor; keys are the node view's then; Esc returns to the list", () => {
		let state = press(press(FLEET_INITIAL, NODES, 'j'), NODES, '\r', {return: true});
		expect(state).toMatchObject({view: 'node', mode: 'main', open: 'node2'});
		// A key made for the list that arrives once the node's view is open means nothing there.
		expect(press(state, NODES, 'q')).toBe(state);
		state = reduce(state, {type: 'input', input: '', key: {escape: true}, context: keyContext([1], {fleet: true})});
		expect(state).toMatchObject({view: 'nodes', mode: 'main', open: null, cursorNode: 'node2'});
	});

	it('q and Ctrl-C quit, Ctrl-Z suspends: effects for the app; the one-node keys (space, a, w) do nothing here', () => {
		expect(press(FLEET_INITIAL, NODES, 'q').effects).toEqual([{kind: 'quit'}]);
		expect(press(FLEET_INITIAL, NODES, 'c', {ctrl: true}).effects).toEqual([{kind: 'quit'}]);
		expect(press(FLEET_INITIAL, NODES, 'z', {ctrl: true}).effects).toEqual([{kind: 'suspend'}]);
		for (const key of [' ', 'a', 'w']) expect(press(FLEET_INITIAL, NODES, key)).toBe(FLEET_INITIAL);
		// s and e act on the cursor node's job (fleet-confirm.test.ts): with no node heard from, they only say so.
		expect(press(FLEET_INITIAL, NODES, 's')).toMatchObject({
			view: 'nodes',
			mode: 'main',
			confirm: null,
			notice: {text: 'no node: nothing to signal'},
		});
	});

	it('? opens the help, ↓ scrolls it (no further than its last page), Esc or q closes it', () => {
		let state = press(FLEET_INITIAL, NODES, '?');
		expect(state.mode).toBe('help');
		for (let i = 0; i < 30; i++) state = press(state, NODES, 'j');
		expect(state.scroll).toBe(15);
		expect(nodeCursor(state, NODES)).toBe(0);
		expect(press(state, NODES, '', {escape: true}).mode).toBe('main');
		expect(press(state, NODES, 'q')).toMatchObject({view: 'nodes', mode: 'main', effects: []});
	});

	it('Enter with no node listed does nothing', () => {
		expect(press(FLEET_INITIAL, [], '\r', {return: true})).toBe(FLEET_INITIAL);
	});
});

describe("the one-node screen's Esc", () => {
	it("goes back to the nodes in a node's view only; on the one-node screen it does nothing", () => {
		const inNode = {...FLEET_INITIAL, view: 'node', open: 'node1'} as const;
		const esc = (state: UiState, fleet: boolean) =>
			reduce(state, {type: 'input', input: '', key: {escape: true}, context: keyContext([1], {fleet})});
		expect(esc(inNode, true)).toMatchObject({view: 'nodes', open: null});
		expect(esc(INITIAL_STATE, false)).toBe(INITIAL_STATE);
	});
});
