import {expect, test} from 'vitest';
import {
	INITIAL_STATE,
	NODES_INITIAL,
	type NodesKeyContext,
	nodeCursor,
	reduce,
	type UiState,
} from '../../src/ui/state.js';
import {keyContext, nodesKeyContext} from './key-context.js';

// `[` and `]` scroll the alerts pane one entry at a time, from the newest to as far as the pane lets the oldest in
// (the app gives that bound: panes/alert-window.ts alertsScrollMax), never past either end; the rank cursor stays.

function press(state: UiState, input: string, alertsScrollMax?: number): UiState {
	const context = keyContext([101, 102], alertsScrollMax === undefined ? {} : {alertsScrollMax});
	return reduce(state, {type: 'input', input, key: {}, context});
}

test('[ older, ] newer, within 0 and the bound; the cursor does not move', () => {
	let state = INITIAL_STATE;
	for (let i = 0; i < 5; i++) state = press(state, '[', 3);
	expect(state.alertsScroll).toBe(3);
	expect(state.cursor).toBe(INITIAL_STATE.cursor);
	state = press(state, ']', 3);
	expect(state.alertsScroll).toBe(2);
	for (let i = 0; i < 5; i++) state = press(state, ']', 3);
	expect(state.alertsScroll).toBe(0);
});

test('a bound that shrank (fewer rows for the pane) is honoured at the next press; none given: no scroll', () => {
	const far = {...INITIAL_STATE, alertsScroll: 9};
	expect(press(far, ']', 4).alertsScroll).toBe(4);
	expect(press(INITIAL_STATE, '[').alertsScroll).toBe(0);
});

test('the many-node screen: [ ] scroll its alerts pane the same way; the node cursor stays', () => {
	const context: NodesKeyContext = nodesKeyContext(['node1', 'node2'], {alertsScrollMax: 2});
	const key = (state: UiState, input: string) => reduce(state, {type: 'input', input, key: {}, context});
	let state = NODES_INITIAL;
	for (let i = 0; i < 4; i++) state = key(state, '[');
	expect(state.alertsScroll).toBe(2);
	expect(nodeCursor(state, context.nodes)).toBe(0);
	expect(key(state, ']').alertsScroll).toBe(1);
});
