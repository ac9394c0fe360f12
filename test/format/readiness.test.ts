import {describe, expect, test} from 'vitest';
import type {Readiness, ReadinessReason} from '../../src/core/readiness-types.js';
import {leadClause, readinessText, reasonText, workAtRiskS} from '../../src/format/readiness.js';
import {readinessJson} from '../../src/format/readiness-json.js';

// The readiness verdict in the words a user reads (the TUI's line, headless, `ranks`, the drill, preflight) and in the
// JSON the outputs write: the exact sentences for the reasons met most, the order they come in, the figures rounded.

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

function readiness(extra: Partial<Readiness> = {}): Readiness {
	return {
		job: 'torchrun:4200',
		verdict: 'ready',
		signal: 'SIGTERM',
		reasons: [],
		saveS: null,
		leadS: null,
		leadFrom: null,
		lastSaveAt: null,
		maxWorkAtRiskS: null,
		...extra,
	};
}

const words = (r: ReadinessReason, work: number | null = null) => reasonText(r, work);

describe('reasonText', () => {
	test('a rank without a handler, and one that ignores it, by rank and pid', () => {
		expect(words({code: 'no-handler', effect: 'not-ready', signal: 'SIGTERM', rank: 2, pid: 4203})).toBe(
			'rank 2 (pid 4203) has no SIGTERM handler: it dies unsaved',
		);
		expect(words({code: 'no-handler', effect: 'not-ready', signal: 'SIGTERM', rank: null})).toBe(
			'a rank has no SIGTERM handler: it dies unsaved',
		);
		expect(words({code: 'ignored', effect: 'not-ready', signal: 'SIGUSR1', rank: 0, pid: 4201})).toBe(
			'rank 0 (pid 4201) ignores SIGUSR1: it never saves on it',
		);
	});

	test('the slowest save over the lead', () => {
		expect(
			words({code: 'save-over-lead', effect: 'at-risk', seconds: 150, limitS: 120, name: 'checkpoint_step_1000'}),
		).toBe('the slowest save took 2 m 30 s (checkpoint_step_1000), longer than the 2 min it gets');
	});

	test('the warning to the batch shell alone', () => {
		expect(words({code: 'batch-shell-only', effect: 'not-ready', signal: 'SIGUSR1'})).toBe(
			'B:USR1 goes to the batch shell alone, which has no trap for it: the ranks never see it',
		);
		expect(words({code: 'shell-trap-no-forward', effect: 'at-risk', signal: 'SIGUSR1', name: 'requeues'})).toBe(
			'B:USR1 goes to the batch shell, whose trap requeues the job: the ranks may never get it',
		);
	});

	test('the lead, for each source, and a launcher’s shorter one', () => {
		const lead = (extra: Partial<ReadinessReason>, signal = 'SIGTERM') =>
			words({code: 'lead', effect: 'fact', signal, ...extra});
		expect(lead({seconds: 120, name: 'grace'})).toBe('--grace gives 2 min');
		expect(lead({seconds: 300, name: 'scheduler-warning'}, 'SIGUSR1')).toBe(
			'the SIGUSR1 warning comes 5 min before the end',
		);
		expect(lead({seconds: 30, name: 'kill-wait'})).toBe(
			"the kill comes 30 s after SIGTERM (the scheduler's kill wait)",
		);
		expect(lead({seconds: 30, name: 'grace', source: 'torchrun'})).toBe('torchrun leaves 30 s before its kill');
		expect(lead({seconds: 45})).toBe('45 s from the signal to the kill');
	});

	test('the handlers, one rank and several', () => {
		expect(words({code: 'handlers', effect: 'fact', signal: 'SIGTERM', count: 1})).toBe('the rank handles SIGTERM');
		expect(words({code: 'handlers', effect: 'fact', signal: 'SIGTERM', count: 2})).toBe(
			'every rank handles SIGTERM (2)',
		);
	});

	test('the work since the last save, against its limit when one is known', () => {
		expect(words({code: 'work-since-save', effect: 'fact', limitS: 1800}, 180)).toBe(
			'3 min of work since the last save (30 min accepted)',
		);
		expect(words({code: 'work-over-limit', effect: 'at-risk', limitS: 1800}, 7200)).toBe(
			'2.0 h of work since the last save, more than the 30 min accepted',
		);
		expect(words({code: 'work-since-save', effect: 'fact'}, null)).toBe('the work since the last save');
	});

	test('a checkpoint’s name with a control character is shown escaped', () => {
		const text = words({
			code: 'save-over-lead',
			effect: 'at-risk',
			seconds: 150,
			limitS: 120,
			name: 'ckpt\u001b]0;x\u0007',
		});
		expect(text).toContain('(ckpt\\e]0;x\\x07)');
		expect(text).not.toContain('\u001b');
	});
});

const HANDLERS: ReadinessReason = {code: 'handlers', effect: 'fact', signal: 'SIGTERM', count: 2};
const OVER: ReadinessReason = {
	code: 'save-over-lead',
	effect: 'at-risk',
	seconds: 40.12345,
	limitS: 30,
	name: 'ckpt_step40.pt',
};
const NO_DEADLINE: ReadinessReason = {code: 'no-deadline', effect: 'unknown'};
const NOTE: ReadinessReason = {
	code: 'launcher-exit-code',
	effect: 'note',
	signal: 'SIGTERM',
	name: 'torchrun',
	pid: 4200,
	exitCode: 1,
};
const NO_HANDLER: ReadinessReason = {code: 'no-handler', effect: 'not-ready', signal: 'SIGTERM', rank: 1, pid: 4202};

describe('readinessText', () => {
	test('problems first (not-ready, then at-risk), then what is unknown, the facts, the notes', () => {
		const r = readiness({verdict: 'not-ready', reasons: [NOTE, HANDLERS, NO_DEADLINE, OVER, NO_HANDLER]});
		expect(readinessText(r, NOW)).toBe(
			'not-ready — rank 1 (pid 4202) has no SIGTERM handler: it dies unsaved; ' +
				'the slowest save took 40 s (ckpt_step40.pt), longer than the 30 s it gets; ' +
				'no deadline known: pass --grace; ' +
				'every rank handles SIGTERM (2); ' +
				"torchrun exits 1 when a rank fails, whatever the rank's code: a batch script testing for the rank's (requeue on 99) never sees it",
		);
	});

	test('the work since the last save is counted at the given now', () => {
		const r = readiness({lastSaveAt: NOW - 180_000, reasons: [{code: 'work-since-save', effect: 'fact'}]});
		expect(readinessText(r, NOW)).toBe('ready — 3 min of work since the last save');
	});
});

describe('leadClause and workAtRiskS', () => {
	test('the lead to the tenth, by its giver', () => {
		expect(leadClause(readiness({leadS: 120, leadFrom: 'scheduler-warning'}))).toBe('the warning gives 120.0 s');
		expect(leadClause(readiness({leadS: 30, leadFrom: 'grace'}))).toBe('--grace gives 30.0 s');
		expect(leadClause(readiness({leadS: 60, leadFrom: 'kill-wait'}))).toBe("the scheduler's kill wait gives 60.0 s");
		expect(leadClause(readiness({leadS: 7.25, leadFrom: null}))).toBe('the lead is 7.3 s');
		expect(leadClause(readiness())).toBe('no deadline known (pass --grace)');
	});

	test('work at risk: seconds since the last save, never below 0, null without one', () => {
		expect(workAtRiskS(readiness({lastSaveAt: NOW - 90_500}), NOW)).toBe(90.5);
		// A save time ahead of the viewer's clock (another node's) is no negative work.
		expect(workAtRiskS(readiness({lastSaveAt: NOW + 5000}), NOW)).toBe(0);
		expect(workAtRiskS(readiness(), NOW)).toBeNull();
	});
});

describe('readinessJson', () => {
	test('snake_case, reasons ordered with their words and figures, times rounded', () => {
		const r = readiness({
			verdict: 'not-ready',
			reasons: [NOTE, OVER, NO_HANDLER],
			saveS: {p50: 12.34567, max: 40.12345, samples: 3, slowest: 'ckpt_step40.pt'},
			leadS: 30,
			leadFrom: 'grace',
			lastSaveAt: NOW - 61_234,
			maxWorkAtRiskS: 1800,
		});
		expect(readinessJson(r, NOW)).toEqual({
			verdict: 'not-ready',
			signal: 'SIGTERM',
			reasons: [
				{
					code: 'no-handler',
					effect: 'not-ready',
					text: 'rank 1 (pid 4202) has no SIGTERM handler: it dies unsaved',
					signal: 'SIGTERM',
					rank: 1,
					pid: 4202,
				},
				{
					code: 'save-over-lead',
					effect: 'at-risk',
					text: 'the slowest save took 40 s (ckpt_step40.pt), longer than the 30 s it gets',
					seconds: 40.123,
					limit_s: 30,
					name: 'ckpt_step40.pt',
				},
				{
					code: 'launcher-exit-code',
					effect: 'note',
					text: "torchrun exits 1 when a rank fails, whatever the rank's code: a batch script testing for the rank's (requeue on 99) never sees it",
					signal: 'SIGTERM',
					pid: 4200,
					exit_code: 1,
					name: 'torchrun',
				},
			],
			save_s: {p50: 12.346, max: 40.123, samples: 3, slowest: 'ckpt_step40.pt'},
			lead_s: 30,
			lead_from: 'grace',
			work_at_risk_s: 61.2,
			max_work_at_risk_s: 1800,
		});
	});

	test('nothing known: nulls, not zeros', () => {
		const json = readinessJson(readiness({verdict: 'unknown', reasons: [NO_DEADLINE]}), NOW);
		expect(json).toMatchObject({save_s: null, lead_s: null, lead_from: null, work_at_risk_s: null});
		expect(json.max_work_at_risk_s).toBeNull();
		expect(JSON.parse(JSON.stringify(json))).toEqual(json);
	});
});
