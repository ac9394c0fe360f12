import {describe, expect, test} from 'vitest';
import {barHints, helpEntries, KEYMAP, resolveKey, type Mode} from '../../src/ui/keymap.js';
import {INITIAL_STATE, step, targetPids, type UiState} from '../../src/ui/state.js';

const ctx = {rankPids: [101, 102, 103, 104], page: 2};

function run(actions: Parameters<typeof step>[1][], from: UiState = INITIAL_STATE) {
	let state = from;
	const effects = [];
	for (const a of actions) {
		const next = step(state, a, ctx);
		state = next.state;
		if (next.effect) effects.push(next.effect);
	}
	return {state, effects};
}

describe('keymap', () => {
	test('each mode resolves its own keys; Enter and Esc mean different things in different boxes', () => {
		expect(resolveKey('s', {}, 'main', false)).toBe('save');
		expect(resolveKey('s', {}, 'confirm', false)).toBeNull();
		expect(resolveKey('', {return: true}, 'confirm', false)).toBe('activate');
		expect(resolveKey('', {return: true}, 'result', false)).toBe('close');
		expect(resolveKey('', {escape: true}, 'confirm', false)).toBe('close');
		expect(resolveKey('c', {ctrl: true}, 'main', false)).toBe('quit');
		expect(resolveKey('c', {ctrl: true}, 'confirm', false)).toBe('close');
		expect(resolveKey('y', {}, 'main', false)).toBeNull();
		expect(resolveKey('j', {}, 'main', false)).toBe('down');
		expect(resolveKey('', {upArrow: true}, 'analysis', false)).toBe('up');
	});

	test('--readonly removes every signal action from keys, help and bar, and nothing else', () => {
		const acting = KEYMAP.filter(b => b.acts).map(b => b.action);
		expect(acting.sort()).toEqual(['emergency', 'save']);
		for (const mode of ['main', 'confirm', 'result', 'help', 'analysis'] as Mode[]) {
			expect(resolveKey('s', {}, mode, true)).toBeNull();
			expect(resolveKey('e', {}, mode, true)).toBeNull();
		}
		expect(resolveKey('q', {}, 'main', true)).toBe('quit');
		expect(helpEntries(true).length).toBe(helpEntries(false).length - 2);
		expect(barHints(true).map(h => h.label)).toEqual(['quit', 'mark', 'move', 'analyze', 'help']);
		expect(barHints(false).map(h => h.key)).toEqual(['q', 's', 'e', 'space', '↑↓', 'a', '?']);
	});
});

describe('state', () => {
	test('the confirm box opens on Cancel; Enter there closes it with no effect', () => {
		const opened = run(['save']);
		expect(opened.state).toMatchObject({mode: 'confirm', confirm: {action: 'save', choice: 'cancel'}});
		const cancelled = run(['activate'], opened.state);
		expect(cancelled.state.mode).toBe('main');
		expect(cancelled.effects).toEqual([]);
	});

	test('choose-next then activate, or confirm (y), sends; the box gives way to the result', () => {
		expect(run(['emergency', 'choose-next', 'activate']).effects).toEqual([{kind: 'send', action: 'emergency'}]);
		expect(run(['save', 'choose-next', 'choose-next', 'activate']).effects).toEqual([]);
		const sent = run(['save', 'confirm']);
		expect(sent.effects).toEqual([{kind: 'send', action: 'save'}]);
		expect(sent.state.mode).toBe('result');
		expect(run(['close'], sent.state).state.mode).toBe('main');
	});

	test('no ranks: save opens nothing', () => {
		expect(step(INITIAL_STATE, 'save', {rankPids: [], page: 1}).state.mode).toBe('main');
	});

	test('cursor stays within the ranks; marks toggle and move the cursor on; targets are the marked or all', () => {
		expect(run(['up']).state.cursor).toBe(0);
		expect(run(['down', 'down', 'down', 'down', 'down']).state.cursor).toBe(3);
		expect(run(['page-down']).state.cursor).toBe(2);
		const marked = run(['mark', 'mark', 'up', 'mark']);
		expect([...marked.state.marked]).toEqual([101]);
		expect(targetPids(marked.state, ctx.rankPids)).toEqual([101]);
		expect(targetPids(INITIAL_STATE, ctx.rankPids)).toEqual([101, 102, 103, 104]);
		// A marked rank that has gone no longer counts: the rest is "all".
		expect(targetPids(marked.state, [102, 103])).toEqual([102, 103]);
	});

	test('analysis scrolls from 0; quit and analyze are effects', () => {
		const a = run(['analyze', 'down', 'down', 'up']);
		expect(a.state).toMatchObject({mode: 'analysis', scroll: 1});
		expect(a.effects).toEqual([{kind: 'analyze'}]);
		expect(run(['quit']).effects).toEqual([{kind: 'quit'}]);
	});
});
