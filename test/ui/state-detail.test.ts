import {describe, expect, test} from 'vitest';
import {barHints, type KeyInfo, resolveKey} from '../../src/ui/keymap.js';
import {INITIAL_STATE, type KeyContext, reduce, type UiEvent, type UiState} from '../../src/ui/state.js';
import {keyContext} from './key-context.js';

// The rank detail in the reducer: Enter on a rank opens its box and asks for one read of that rank (the
// cursor's pid); the answer fills the box; Esc or q goes back to the ranks; the arrows scroll it.

const ctx: KeyContext = keyContext([101, 102, 103]);

const KEYS: Readonly<Record<string, readonly [string, KeyInfo]>> = {
	enter: ['', {return: true}],
	esc: ['', {escape: true}],
	q: ['q', {}],
	down: ['', {downArrow: true}],
	up: ['', {upArrow: true}],
	pgdn: ['', {pageDown: true}],
	s: ['s', {}],
	w: ['w', {}],
};

function press(names: readonly string[], from: UiState = INITIAL_STATE, context: KeyContext = ctx): UiState {
	let state = from;
	for (const name of names) {
		const [input, key] = KEYS[name]!;
		state = reduce(state, {type: 'input', input, key, context});
	}
	return state;
}

const loaded = (pid: number, count = 10): UiEvent => ({
	type: 'detail-loaded',
	pid,
	title: `rank ${pid - 101} · pid ${pid} · job torchrun:100`,
	lines: Array.from({length: count}, (_, i) => `line ${i}`),
});

describe('rank detail', () => {
	test("Enter opens the detail of the cursor's rank, with one read of its pid as wide as the screen", () => {
		const state = press(['down', 'enter']);
		expect(state.mode).toBe('detail');
		expect(state.effects).toEqual([{kind: 'detail', pid: 102, width: 76}]);
		expect(state.detail).toEqual({pid: 102, title: 'pid 102 · job torchrun:100', lines: ['reading /proc…']});
		const filled = reduce(state, loaded(102));
		expect(filled.detail?.title).toBe('rank 1 · pid 102 · job torchrun:100');
		expect(filled.detail?.lines).toHaveLength(10);
	});

	test.each(['esc', 'q'])('%s goes back to the ranks, the cursor where it was; q does not quit', close => {
		const state = press(['down', 'enter', close]);
		expect(state.mode).toBe('main');
		expect(state.cursorPid).toBe(102);
		expect(state.effects).toEqual([{kind: 'detail', pid: 102, width: 76}]);
	});

	test('--readonly still opens it: it reads, it sends nothing; s in the box does nothing', () => {
		const readonly = {...ctx, readonly: true};
		const state = press(['enter', 's'], INITIAL_STATE, readonly);
		expect(state.mode).toBe('detail');
		expect(state.confirm).toBeNull();
		expect(state.effects).toEqual([{kind: 'detail', pid: 101, width: 76}]);
		expect(resolveKey('', {return: true}, 'main', true)).toBe('detail');
	});

	test('the arrows scroll the box, not the cursor, no further than its last page', () => {
		const open = reduce(press(['enter']), loaded(101, 10));
		expect(press(['down', 'down'], open).scroll).toBe(2);
		// 10 lines in 3 rows: the last page starts at line 7.
		expect(press(['pgdn', 'pgdn', 'pgdn', 'pgdn'], open).scroll).toBe(7);
		expect(press(['down', 'up', 'up'], open).scroll).toBe(0);
		expect(press(['down', 'pgdn'], open).cursorPid).toBeNull();
		// Reopened: from its top.
		expect(press(['pgdn', 'esc', 'enter'], open).scroll).toBe(0);
	});

	test('a rank gone: the box says so; an answer about another box changes nothing', () => {
		const open = press(['enter']);
		const gone = reduce(open, {type: 'detail-failed', pid: 101, message: 'pid 101 is no longer a rank'});
		expect(gone.detail?.lines).toEqual(['pid 101 is no longer a rank']);
		// Closed, then rank 2's detail opened: rank 0's late answer is not put in it.
		const other = press(['esc', 'down', 'down', 'enter'], open);
		expect(reduce(other, loaded(101)).detail).toEqual(other.detail);
	});

	test('no ranks: Enter opens nothing and says so on the key bar', () => {
		const state = press(['enter'], INITIAL_STATE, {...ctx, ranks: []});
		expect(state.mode).toBe('main');
		expect(state.effects).toEqual([]);
		expect(state.notice?.text).toMatch(/^no ranks found: no rank to show/);
	});

	test("the detail's key bar: close, scroll and where; Ctrl-C still quits from it", () => {
		expect(barHints('detail', false).map(h => `${h.key} ${h.label}`)).toEqual(['Esc close', '↑↓ scroll', 'w where']);
		expect(barHints('detail', true).map(h => `${h.key} ${h.label}`)).toContain('w where');
		expect(resolveKey('c', {ctrl: true}, 'detail', false)).toBe('quit');
		expect(resolveKey('', {return: true}, 'detail', false)).toBeNull();
	});

	test("w in the detail reads where that rank is, into the same box; w on the ranks is still the charts' window", () => {
		const state = press(['down', 'enter', 'w'], INITIAL_STATE, {...ctx, readonly: true});
		expect(state.mode).toBe('detail');
		expect(state.effects).toEqual([
			{kind: 'detail', pid: 102, width: 76},
			{kind: 'stacks', pid: 102, width: 76},
		]);
		expect(state.detail?.lines).toEqual(['reading where it is (/proc, py-spy)…']);
		const answered = reduce(state, {
			type: 'detail-loaded',
			pid: 102,
			title: 'rank 1 · pid 102 · job torchrun:100 · where',
			lines: ['rank 1  pid 102  S in futex_do_wait  1 thread'],
		});
		expect(answered.detail?.title).toMatch(/ · where$/);
		// A late answer for another rank's box changes nothing.
		expect(reduce(answered, loaded(101)).detail).toEqual(answered.detail);
		const main = press(['w']);
		expect(main.mode).toBe('main');
		expect(main.window).not.toBe(INITIAL_STATE.window);
		expect(main.effects).toEqual([]);
	});
});
