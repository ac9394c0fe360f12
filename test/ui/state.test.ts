import {describe, expect, test} from 'vitest';
import type {SendResult} from '../../src/ranks/send.js';
import {barHints, helpEntries, KEYMAP, type KeyInfo, resolveKey, type Mode} from '../../src/ui/keymap.js';
import {INITIAL_STATE, type KeyContext, reduce, targetPids, type UiEvent, type UiState} from '../../src/ui/state.js';

const ctx: KeyContext = {
	rankPids: [101, 102, 103, 104],
	page: 2,
	analysisRows: 3,
	width: 76,
	readonly: false,
	signals: {save: 'SIGUSR1', emergency: 'SIGTERM'},
	now: 1_000_000,
};

/** The key that asks for each action in these tests. */
const KEYS: Readonly<Record<string, readonly [string, KeyInfo]>> = {
	save: ['s', {}],
	emergency: ['e', {}],
	activate: ['', {return: true}],
	'choose-next': ['', {rightArrow: true}],
	confirm: ['y', {}],
	close: ['', {escape: true}],
	up: ['k', {}],
	down: ['j', {}],
	'page-down': ['', {pageDown: true}],
	mark: [' ', {}],
	analyze: ['a', {}],
	quit: ['q', {}],
};

function key(name: string, context: KeyContext = ctx): UiEvent {
	const [input, info] = KEYS[name]!;
	return {type: 'input', input, key: info, context};
}

/** Presses the keys in turn; the effects queued on the way, in order. */
function run(names: readonly string[], from: UiState = INITIAL_STATE, context: KeyContext = ctx) {
	let state = from;
	for (const name of names) state = reduce(state, key(name, context));
	return {state, effects: state.effects};
}

const sent = (pid: number, outcome: SendResult['outcome']): SendResult =>
	({rank: pid - 101, pid, outcome, reason: outcome === 'refused' ? 'no handler' : null}) as SendResult;

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
		expect(barHints('main', true).map(h => h.label)).toEqual(['quit', 'mark', 'move', 'analyze', 'help']);
		expect(barHints('main', false).map(h => h.key)).toEqual(['q', 's', 'e', 'space', '↑↓', 'a', '?']);
	});

	test("every mode's key bar comes from the keymap, most important first", () => {
		const bar = (mode: Mode) => barHints(mode, false).map(h => `${h.key} ${h.label}`);
		expect(bar('confirm')).toEqual(['Enter press highlighted', '←→ choose', 'y send', 'Esc cancel']);
		expect(bar('result')).toEqual(['Esc close']);
		expect(bar('help')).toEqual(['Esc close']);
		expect(bar('analysis')).toEqual(['Esc close', '↑↓ scroll']);
		// q quits from the boxes too, but only the main bar spends room on it.
		expect(resolveKey('q', {}, 'analysis', false)).toBe('quit');
		expect(bar('analysis').join(' ')).not.toContain('quit');
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

	test('choose-next then activate, or confirm (y), sends to the targets; the box gives way to the result', () => {
		expect(run(['emergency', 'choose-next', 'activate']).effects).toEqual([
			{kind: 'send', action: 'emergency', pids: [101, 102, 103, 104]},
		]);
		expect(run(['save', 'choose-next', 'choose-next', 'activate']).effects).toEqual([]);
		const sending = run(['save', 'confirm']);
		expect(sending.effects).toEqual([{kind: 'send', action: 'save', pids: [101, 102, 103, 104]}]);
		expect(sending.state.mode).toBe('result');
		expect(sending.state.result?.title).toBe('sending SIGUSR1 (save)…');
		expect(run(['close'], sending.state).state.mode).toBe('main');
	});

	test('keys are read in the mode they arrive in: s then y sends, whatever the last frame showed', () => {
		// Both events reach the reducer before any render: y is a confirm-box key, and the box is open.
		expect(run(['save', 'confirm']).effects).toHaveLength(1);
		expect(run(['confirm']).effects).toEqual([]);
	});

	test('no ranks: save opens nothing and says so on the key bar for 5 s', () => {
		const none = {...ctx, rankPids: []};
		const {state} = run(['save'], INITIAL_STATE, none);
		expect(state.mode).toBe('main');
		expect(state.notice).toEqual({
			text: 'no ranks found: nothing to signal (see RANKS; --pid or --match pick the job)',
			until: ctx.now + 5000,
		});
		expect(state.effects).toEqual([]);
	});

	test('--readonly: signal keys resolve to nothing', () => {
		const {state} = run(['save', 'emergency', 'confirm'], INITIAL_STATE, {...ctx, readonly: true});
		expect(state).toBe(INITIAL_STATE);
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
		expect(run(['save', 'confirm'], marked.state).effects).toEqual([{kind: 'send', action: 'save', pids: [101]}]);
	});

	test('analysis: an effect for the report as wide as the screen; it scrolls no further than its last page', () => {
		const opened = run(['analyze']);
		expect(opened.effects).toEqual([{kind: 'analyze', width: 76}]);
		expect(opened.state.analysis?.lines).toEqual(['reading the log…']);
		const taken = reduce(opened.state, {type: 'effects-taken', count: 1});
		expect(taken.effects).toEqual([]);
		const loaded = reduce(taken, {type: 'analysis-loaded', lines: ['a', 'b', 'c', 'd', 'e']});
		expect(loaded.analysis).toEqual({title: "Analysis of this run's memory log", lines: ['a', 'b', 'c', 'd', 'e']});
		// 5 lines in a 3-line box: scroll stops at 2.
		expect(run(['down', 'down', 'down', 'down'], loaded).state.scroll).toBe(2);
		expect(run(['down', 'down', 'up'], loaded).state.scroll).toBe(1);
		expect(run(['page-down'], loaded).state.scroll).toBe(2);
		expect(reduce(taken, {type: 'analysis-failed', message: 'EACCES'}).analysis).toEqual({
			title: 'Analysis',
			lines: ['cannot analyse: EACCES'],
		});
		expect(run(['quit']).effects).toEqual([{kind: 'quit'}]);
	});

	test("a send's outcome fills the result box and starts the save status; its checkpoint or timeout ends it", () => {
		const sending = run(['save', 'confirm']).state;
		const results = [sent(101, 'sent'), sent(102, 'sent'), sent(103, 'refused')];
		const after = reduce(sending, {
			type: 'sent',
			action: 'save',
			signal: 'SIGUSR1',
			results,
			sentAt: '2026-11-24 02:00:00',
			watching: true,
		});
		expect(after.result?.title).toBe('SIGUSR1 (save): sent 2, refused 1');
		expect(after.result?.lines).toHaveLength(3);
		expect(after.saveStatus).toEqual({text: 'waiting for checkpoint… (SIGUSR1 sent 2026-11-24 02:00:00)', level: 'ok'});
		const saved = reduce(after, {
			type: 'save-finished',
			signal: 'SIGUSR1',
			checkpoint: 'checkpoint_step_40',
			seconds: 1.2,
			timeoutS: 120,
		});
		expect(saved.saveStatus).toEqual({text: 'saved checkpoint_step_40 in 1.2 s', level: 'ok'});
		const late = reduce(after, {
			type: 'save-finished',
			signal: 'SIGUSR1',
			checkpoint: null,
			seconds: 120,
			timeoutS: 120,
		});
		expect(late.saveStatus).toEqual({
			text: "no new checkpoint 120 s after SIGUSR1: check the job's log",
			level: 'critical',
		});
		const noRunDir = reduce(sending, {
			type: 'sent',
			action: 'save',
			signal: 'SIGUSR1',
			results,
			sentAt: '02:00:00',
			watching: false,
		});
		expect(noRunDir.saveStatus?.level).toBe('warn');
		// Nothing sent (every rank refused): no status, nothing to wait for.
		expect(
			reduce(sending, {
				type: 'sent',
				action: 'save',
				signal: 'SIGUSR1',
				results: [sent(103, 'refused')],
				sentAt: '02:00:00',
				watching: true,
			}).saveStatus,
		).toBeNull();
	});
});
