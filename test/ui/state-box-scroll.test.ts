import {describe, expect, test} from 'vitest';
import type {KeyInfo} from '../../src/ui/keymap.js';
import {
	INITIAL_STATE,
	type KeyContext,
	NODES_INITIAL,
	type NodesKeyContext,
	reduce,
	type UiState,
} from '../../src/ui/state.js';
import {keyContext, nodesKeyContext} from './key-context.js';

// The boxes scroll by their rows as drawn (lines wrapped to the box), and a confirm box too tall for the screen
// scrolls its body with ↑↓ PgUp PgDn: the rank cursor (its target is already chosen) never moves under it.

const KEYS: Readonly<Record<string, readonly [string, KeyInfo]>> = {
	save: ['s', {}],
	activate: ['', {return: true}],
	close: ['', {escape: true}],
	up: ['k', {}],
	down: ['j', {}],
	'page-down': ['', {pageDown: true}],
	analyze: ['a', {}],
};

function run(names: readonly string[], from: UiState, context: KeyContext): UiState {
	let state = from;
	for (const name of names) {
		const [input, key] = KEYS[name]!;
		state = reduce(state, {type: 'input', input, key, context});
	}
	return state;
}

describe('the one-node screen', () => {
	// A confirm body of 20 rows, 5 of them in sight.
	const ctx = keyContext([101, 102, 103], {confirm: {lines: 20, rows: 5}});

	test('a confirm box opens at its first row; ↓ and PgDn scroll it to its last page, never further; the cursor stays', () => {
		const opened = run(['save'], INITIAL_STATE, ctx);
		expect(opened.mode).toBe('confirm');
		expect(opened.scroll).toBe(0);
		const down = run(['down', 'down'], opened, ctx);
		expect(down.scroll).toBe(2);
		expect(down.cursor).toBe(opened.cursor);
		expect(down.confirm).toEqual(opened.confirm);
		expect(run(['page-down', 'page-down', 'page-down', 'page-down'], opened, ctx).scroll).toBe(15);
		expect(run(['page-down', 'up'], opened, ctx).scroll).toBe(4);
		// Enter still presses the highlighted button (Cancel): nothing is sent, the box closes.
		const closed = run(['activate'], down, ctx);
		expect(closed.mode).toBe('main');
		expect(closed.effects).toEqual([]);
		// Opened again: at its first row.
		expect(run(['save'], closed, ctx).scroll).toBe(0);
	});

	test('a confirm box that fits scrolls not at all', () => {
		const fits = keyContext([101], {confirm: {lines: 4, rows: 4}});
		expect(run(['save', 'down', 'page-down'], INITIAL_STATE, fits).scroll).toBe(0);
	});

	test('the analysis scrolls by its wrapped rows: a line wider than the box counts as the rows it takes', () => {
		// A 76-column box of 3 rows; the first line takes 3 rows wrapped, so 5 rows in all and the last page at 2.
		const ctx3 = keyContext([101], {width: 76, analysisRows: 3});
		const long = Array.from({length: 30}, (_, i) => `word${i}`).join(' ');
		expect(long.length).toBeGreaterThan(152);
		const opened = reduce(run(['analyze'], INITIAL_STATE, ctx3), {type: 'analysis-loaded', lines: [long, 'b', 'c']});
		expect(run(['down', 'down', 'down', 'down'], opened, ctx3).scroll).toBe(2);
	});
});

describe('the many-node screen', () => {
	const context: NodesKeyContext = nodesKeyContext(['node1', 'node2', 'node3'], {confirm: {lines: 12, rows: 4}});
	const press = (state: UiState, input: string, key: KeyInfo = {}): UiState =>
		reduce(state, {type: 'input', input, key, context});
	const confirming: UiState = {
		...NODES_INITIAL,
		nodeCursor: 1,
		cursorNode: 'node2',
		mode: 'confirm',
		confirm: {action: 'save', choice: 'cancel', target: {job: 'slurm:9.0', nodes: [{node: 'node2', pids: [10]}]}},
	};

	test('in a confirm box ↓ and PgDn scroll its body to its last page; the node cursor stays', () => {
		const down = press(press(confirming, 'j'), '', {downArrow: true});
		expect(down.scroll).toBe(2);
		expect(down.cursorNode).toBe('node2');
		expect(down.nodeCursor).toBe(1);
		expect(
			press(press(press(confirming, '', {pageDown: true}), '', {pageDown: true}), '', {pageDown: true}).scroll,
		).toBe(8);
		expect(press(down, 'k').scroll).toBe(1);
	});
});
