import {describe, expect, test} from 'vitest';
import type {SendResult} from '../../src/ranks/send.js';
import {barHints, helpEntries, KEYMAP, type KeyInfo, resolveKey, type Mode} from '../../src/ui/keymap.js';
import {localTime} from '../../src/format/time.js';
import {cursorIndex, INITIAL_STATE, type KeyContext, reduce, type UiEvent, type UiState} from '../../src/ui/state.js';
import {targetOf, toggleMark} from '../../src/ui/targets.js';
import {identities, keyContext, startOf} from './key-context.js';

const ctx: KeyContext = keyContext([101, 102, 103, 104]);

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
	help: ['?', {}],
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
		expect(acting.sort()).toEqual(['drill', 'emergency', 'save']);
		for (const mode of ['main', 'confirm', 'result', 'help', 'analysis'] as Mode[]) {
			expect(resolveKey('s', {}, mode, true)).toBeNull();
			expect(resolveKey('e', {}, mode, true)).toBeNull();
			expect(resolveKey('d', {}, mode, true)).toBeNull();
		}
		expect(resolveKey('q', {}, 'main', true)).toBe('quit');
		expect(helpEntries(true).length).toBe(helpEntries(false).length - 3);
		expect(barHints('main', true).map(h => h.label)).toEqual([
			'quit',
			'mark',
			'move',
			'analyze',
			'help',
			'detail',
			'alerts',
		]);
		expect(barHints('main', false).map(h => h.key)).toEqual([
			'q',
			's',
			'e',
			'd',
			'space',
			'↑↓',
			'a',
			'?',
			'Enter',
			'[]',
		]);
	});

	test("every mode's key bar comes from the keymap, most important first", () => {
		const bar = (mode: Mode) => barHints(mode, false).map(h => `${h.key} ${h.label}`);
		expect(bar('confirm')).toEqual(['Enter press highlighted', '←→ choose', 'y send', 'Esc cancel']);
		expect(bar('result')).toEqual(['Esc close']);
		expect(bar('help')).toEqual(['Esc close', '↑↓ scroll']);
		expect(bar('analysis')).toEqual(['Esc close', '↑↓ scroll']);
		// q in a box closes the box, never the app; Ctrl-C still quits from it (not from a confirm: it cancels).
		for (const mode of ['analysis', 'help', 'result'] as const) {
			expect(resolveKey('q', {}, mode, false)).toBe('close');
			expect(resolveKey('c', {ctrl: true}, mode, false)).toBe('quit');
		}
		expect(resolveKey('q', {}, 'confirm', false)).toBeNull();
		expect(resolveKey('c', {ctrl: true}, 'confirm', false)).toBe('close');
		expect(bar('analysis').join(' ')).not.toContain('quit');
	});
});

describe('help scrolls', () => {
	test('↓ and PgDn move the help, not the rank cursor, and stop at its last page; it opens at the top', () => {
		const opened = run(['help']).state;
		expect(opened.mode).toBe('help');
		const down = run(['down', 'down'], opened).state;
		expect(down.scroll).toBe(2);
		expect(down.cursor).toBe(opened.cursor);
		// 10 lines in a 3-line box: the last page starts at line 7.
		expect(run(['page-down', 'page-down', 'page-down', 'page-down'], opened).state.scroll).toBe(7);
		const again = run(['close', 'help'], down).state;
		expect(again.scroll).toBe(0);
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
			{kind: 'send', action: 'emergency', job: 'torchrun:100', identities: identities(101, 102, 103, 104)},
		]);
		expect(run(['save', 'choose-next', 'choose-next', 'activate']).effects).toEqual([]);
		const sending = run(['save', 'confirm']);
		expect(sending.effects).toEqual([
			{kind: 'send', action: 'save', job: 'torchrun:100', identities: identities(101, 102, 103, 104)},
		]);
		expect(sending.state.mode).toBe('result');
		expect(sending.state.result?.title).toBe('sending SIGUSR1 (save) to job torchrun:100…');
		expect(run(['close'], sending.state).state.mode).toBe('main');
	});

	test('keys are read in the mode they arrive in: s then y sends, whatever the last frame showed', () => {
		// Both events reach the reducer before any render: y is a confirm-box key, and the box is open.
		expect(run(['save', 'confirm']).effects).toHaveLength(1);
		expect(run(['confirm']).effects).toEqual([]);
	});

	test('no ranks: save opens nothing and says so on the key bar for 5 s', () => {
		const none = {...ctx, ranks: []};
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
		expect(targetOf(ctx.ranks, 0, marked.state.marked)?.pids).toEqual([101]);
		expect(targetOf(ctx.ranks, 0, INITIAL_STATE.marked)?.pids).toEqual([101, 102, 103, 104]);
		// A marked rank that has gone no longer counts: the rest is "all".
		const left = [102, 103].map(pid => ({pid, job: 'torchrun:100', startTime: startOf(pid)}));
		expect(targetOf(left, 0, marked.state.marked)).toEqual({
			job: 'torchrun:100',
			pids: [102, 103],
			identities: identities(102, 103),
			marked: false,
			of: 2,
		});
		expect(run(['save', 'confirm'], marked.state).effects).toEqual([
			{kind: 'send', action: 'save', job: 'torchrun:100', identities: identities(101)},
		]);
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
		const sentAt = Date.UTC(2026, 10, 24, 2, 0, 0);
		const event = {type: 'sent', action: 'save', signal: 'SIGUSR1', job: 'torchrun:100', results, sentAt} as const;
		const after = reduce(sending, {...event, watch: 'watching'});
		expect(after.result?.title).toBe('SIGUSR1 (save) to job torchrun:100: sent 2, refused 1');
		expect(after.result?.lines).toHaveLength(3);
		expect(after.saveStatus).toEqual({
			text: `waiting for checkpoint… (SIGUSR1 to job torchrun:100 sent ${localTime(sentAt).slice(11)})`,
			level: 'ok',
		});
		const finished = {type: 'save-finished', sentAt, signal: 'SIGUSR1', seconds: 1.2, timeoutS: 120} as const;
		const saved = reduce(after, {...finished, checkpoint: 'checkpoint_step_40', attributed: true, note: null});
		expect(saved.saveStatus).toEqual({text: 'saved checkpoint_step_40 in 1.2 s', level: 'ok'});
		const maybe = reduce(after, {
			...finished,
			checkpoint: 'checkpoint-40',
			attributed: false,
			note: 'next checkpoint, may be periodic',
		});
		expect(maybe.saveStatus).toEqual({
			text: 'checkpoint-40 in 1.2 s — next checkpoint, may be periodic',
			level: 'warn',
		});
		const late = reduce(after, {...finished, checkpoint: null, attributed: false, note: null, seconds: 120});
		expect(late.saveStatus).toEqual({
			text: "no new checkpoint 120 s after SIGUSR1: check the job's log",
			level: 'critical',
		});
		// An answer about an earlier send does not overwrite the status of the last one.
		const stale = reduce(after, {
			...finished,
			sentAt: sentAt - 60_000,
			checkpoint: null,
			attributed: false,
			note: null,
		});
		expect(stale.saveStatus).toBe(after.saveStatus);
		expect(reduce(sending, {...event, watch: 'no-run-dir'}).saveStatus).toEqual({
			text: `SIGUSR1 to job torchrun:100 sent ${localTime(sentAt).slice(11)}; no RUN_DIR given, so no checkpoint to wait for`,
			level: 'warn',
		});
		expect(reduce(sending, {...event, watch: 'not-this-job'}).saveStatus).toEqual({
			text: `SIGUSR1 to job torchrun:100 sent ${localTime(sentAt).slice(11)}; save not watched: RUN_DIR is not this job's`,
			level: 'warn',
		});
		// Nothing sent (every rank refused): no status, nothing to wait for.
		expect(reduce(sending, {...event, results: [sent(103, 'refused')], watch: 'watching'}).saveStatus).toBeNull();
	});

	test('an emergency whose job exits first: the exit is the answer, at warn level', () => {
		const sentAt = Date.UTC(2026, 10, 24, 2, 0, 0);
		const after = reduce(run(['emergency', 'confirm']).state, {
			type: 'sent',
			action: 'emergency',
			signal: 'SIGTERM',
			job: 'torchrun:100',
			results: [sent(101, 'sent')],
			sentAt,
			watch: 'watching',
		});
		const exited = reduce(after, {
			type: 'job-exited',
			sentAt,
			signal: 'SIGTERM',
			job: 'torchrun:100',
			exit: {code: 99, signal: null},
		});
		expect(exited.saveStatus).toEqual({
			text: 'no emergency checkpoint seen: job torchrun:100 exited after SIGTERM (exit 99 — saved for requeue)',
			level: 'warn',
		});
		const killed = reduce(after, {
			type: 'job-exited',
			sentAt,
			signal: 'SIGTERM',
			job: 'torchrun:100',
			exit: {code: null, signal: 'SIGKILL'},
		});
		expect(killed.saveStatus?.text).toContain('exited after SIGTERM (killed by SIGKILL)');
	});

	test('a send that finds its job gone: the result box says nothing was sent', () => {
		const state = reduce(run(['save', 'confirm']).state, {
			type: 'send-skipped',
			action: 'save',
			signal: 'SIGUSR1',
			job: 'torchrun:100',
			lines: ['job torchrun:100 is gone: nothing was sent'],
		});
		expect(state.result).toEqual({
			title: 'SIGUSR1 (save) to job torchrun:100: nothing sent',
			lines: ['job torchrun:100 is gone: nothing was sent'],
		});
		expect(state.saveStatus).toBeNull();
	});
});

describe('two jobs', () => {
	// Job A: pids 201, 202; job B: pids 301, 302, 303. The cursor counts ranks, job by job.
	const ranks = [
		{pid: 201, job: 'torchrun:200', startTime: startOf(201)},
		{pid: 202, job: 'torchrun:200', startTime: startOf(202)},
		{pid: 301, job: 'slurm:998.0', startTime: startOf(301)},
		{pid: 302, job: 'slurm:998.0', startTime: startOf(302)},
		{pid: 303, job: 'slurm:998.0', startTime: startOf(303)},
	];
	const two: KeyContext = {...ctx, ranks};

	test('the cursor moves over the ranks of both jobs, job headers are not stops', () => {
		expect(run(['down', 'down'], INITIAL_STATE, two).state.cursor).toBe(2);
		expect(run(['down', 'down', 'down', 'down', 'down', 'down'], INITIAL_STATE, two).state.cursor).toBe(4);
	});

	test("the cursor stays on its rank when a rank above it leaves; s then acts on that rank's job", () => {
		// On B's second rank (302), then A's rank 202 exits: the same index would now be B's third rank.
		const {state} = run(['down', 'down', 'down'], INITIAL_STATE, two);
		expect(state.cursorPid).toBe(302);
		const fewer = ranks.filter(r => r.pid !== 202);
		expect(cursorIndex(state, fewer)).toBe(2);
		const moved = run(['down'], state, {...ctx, ranks: fewer}).state;
		expect(moved.cursorPid).toBe(303);
		// Its own rank gone: the cursor keeps its place, on whichever rank is there now.
		expect(
			cursorIndex(
				state,
				ranks.filter(r => r.pid !== 302),
			),
		).toBe(3);
		const after = run(['save'], state, {...ctx, ranks: fewer}).state;
		expect(after.confirm?.target).toMatchObject({job: 'slurm:998.0', pids: [301, 302, 303]});
	});

	test.each([
		[
			'cursor on A, nothing marked: all of A',
			0,
			[],
			{job: 'torchrun:200', pids: [201, 202], identities: identities(201, 202), marked: false, of: 2},
		],
		[
			'cursor on B, nothing marked: all of B',
			3,
			[],
			{job: 'slurm:998.0', pids: [301, 302, 303], identities: identities(301, 302, 303), marked: false, of: 3},
		],
		[
			'cursor on B, B marked: the marked of B',
			4,
			[303],
			{job: 'slurm:998.0', pids: [303], identities: identities(303), marked: true, of: 3},
		],
		// Marks of A are not targets when the cursor is on B: all of B, never a mix.
		[
			'cursor on B, A marked: all of B',
			2,
			[201],
			{job: 'slurm:998.0', pids: [301, 302, 303], identities: identities(301, 302, 303), marked: false, of: 3},
		],
	] as const)('%s', (_, cursor, marked, target) => {
		expect(targetOf(ranks, cursor, new Set(marked))).toEqual(target);
	});

	test('marking a rank of another job replaces the marks: marks never span two jobs', () => {
		expect([...toggleMark(ranks, 2, new Set([201, 202]))]).toEqual([301]);
		expect([...toggleMark(ranks, 3, new Set([301]))].sort()).toEqual([301, 302]);
		expect([...toggleMark(ranks, 2, new Set([301, 302]))]).toEqual([302]);
		// A mark of a rank no longer listed is dropped, not carried into the new job's marks.
		expect([...toggleMark(ranks, 0, new Set([999]))]).toEqual([201]);
		// Through the reducer: mark both of A's ranks (the cursor moves on to B's first), skip it, mark B's second.
		const {state} = run(['mark', 'mark', 'down', 'mark'], INITIAL_STATE, two);
		expect([...state.marked]).toEqual([302]);
	});

	test("s acts on the cursor's job only, and the effect carries that job and its pids", () => {
		// Mark A's first rank, move to B's second rank, save: all of B.
		const {state, effects} = run(['mark', 'down', 'down', 'save', 'confirm'], INITIAL_STATE, two);
		expect(state.marked).toEqual(new Set([201]));
		expect(effects).toEqual([
			{kind: 'send', action: 'save', job: 'slurm:998.0', identities: identities(301, 302, 303)},
		]);
		// Back on A: its marked rank alone.
		const onA = run(['mark', 'up', 'emergency', 'confirm'], INITIAL_STATE, two);
		expect(onA.effects).toEqual([
			{kind: 'send', action: 'emergency', job: 'torchrun:200', identities: identities(201)},
		]);
	});

	test('the confirm box keeps the target it opened with, whatever the list does before y', () => {
		const opened = run(['down', 'down', 'save'], INITIAL_STATE, two).state;
		expect(opened.confirm?.target.job).toBe('slurm:998.0');
		// Job A ended meanwhile: the same cursor index now points elsewhere, the box's target does not move.
		const onlyB: KeyContext = {...ctx, ranks: ranks.slice(2)};
		expect(run(['confirm'], opened, onlyB).effects).toEqual([
			{kind: 'send', action: 'save', job: 'slurm:998.0', identities: identities(301, 302, 303)},
		]);
	});

	test('the box holds the processes it showed: a rescan with new start times on the same pids does not retarget it', () => {
		const opened = run(['down', 'down', 'save'], INITIAL_STATE, two).state;
		// Every rank of B restarted on the same pids (a new RANK=0 … on reused pids): other start times.
		const restarted: KeyContext = {...ctx, ranks: ranks.map(r => ({...r, startTime: r.startTime + 1}))};
		const [effect] = run(['confirm'], opened, restarted).effects;
		expect(effect).toEqual({kind: 'send', action: 'save', job: 'slurm:998.0', identities: identities(301, 302, 303)});
	});
});
