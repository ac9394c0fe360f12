import {describe, expect, it} from 'vitest';
import {type DeadlineInput as TimeAtRiskInput, judgeDeadline} from '../../src/core/deadline-risk.js';
import {timeAtRiskText} from '../../src/format/time-at-risk.js';

// The deadline judged once (core/deadline-risk.ts: figures and codes) and put into words (format/time-at-risk.ts).
function timeAtRisk(input: TimeAtRiskInput) {
	const risk = judgeDeadline(input);
	return {text: timeAtRiskText(risk), level: risk.level, workAtRiskS: risk.workAtRiskS};
}

const MIN = 60;
const base: TimeAtRiskInput = {
	timeLeftS: 42 * MIN,
	warningLeadS: 2 * MIN,
	warningSignal: 'TERM',
	medianSaveIntervalS: 30 * MIN,
	lastSaveAgeS: 0,
	lastSaveDurationS: null,
};

describe('time left against the save cadence', () => {
	it.each<[string, Partial<TimeAtRiskInput>, string, 'ok' | 'warn', number | null]>([
		[
			'the issue example',
			{},
			'time limit in 42 min; at the usual 30 min cadence the last save lands 12 min before the end — up to 12 min of work lost; the SIGTERM warning comes 2 m 00 s before the end',
			'ok',
			12 * MIN,
		],
		[
			'a save 10 min ago: the next at 20, then 50 (past the end)',
			{lastSaveAgeS: 10 * MIN},
			'time limit in 42 min; at the usual 30 min cadence the last save lands 22 min before the end — up to 22 min of work lost; the SIGTERM warning comes 2 m 00 s before the end',
			'ok',
			22 * MIN,
		],
		[
			'no save before the end',
			{timeLeftS: 5 * MIN, lastSaveAgeS: 10 * MIN},
			'time limit in 5 min; at the usual 30 min cadence no save comes before the end; the last was 10 min ago — up to 15 min of work lost; the SIGTERM warning comes 2 m 00 s before the end',
			'ok',
			15 * MIN,
		],
		[
			'a save overdue: more than one interval at risk',
			{lastSaveAgeS: 50 * MIN},
			'time limit in 42 min; the last save was 50 min ago, overdue at the usual 30 min cadence — up to 1.5 h of work lost if none comes; the SIGTERM warning comes 2 m 00 s before the end',
			'warn',
			92 * MIN,
		],
		[
			"40 min since a save on a 30 min cadence, within the index's margin: not called overdue (its OVERDUE rules)",
			{lastSaveAgeS: 40 * MIN, overdue: false},
			'time limit in 42 min; at the usual 30 min cadence the last save lands 22 min before the end — up to 22 min of work lost; the SIGTERM warning comes 2 m 00 s before the end',
			'ok',
			22 * MIN,
		],
		[
			'the last save wrote in 20 s: within the lead, said beside it',
			{lastSaveDurationS: 20},
			'time limit in 42 min; at the usual 30 min cadence the last save lands 12 min before the end — up to 12 min of work lost; the SIGTERM warning comes 2 m 00 s before the end; the last save took 20 s',
			'ok',
			12 * MIN,
		],
		[
			'a warning shorter than the last save took',
			{warningSignal: 'USR1', warningLeadS: 60, lastSaveDurationS: 3 * MIN},
			'time limit in 42 min; at the usual 30 min cadence the last save lands 12 min before the end — up to 12 min of work lost; the SIGUSR1 warning comes 1 m 00 s before the end, less than the last save took (3 m 00 s)',
			'warn',
			12 * MIN,
		],
		[
			'no warning signal known',
			{warningLeadS: null, warningSignal: null},
			'time limit in 42 min; at the usual 30 min cadence the last save lands 12 min before the end — up to 12 min of work lost; no warning signal before the end is known',
			'ok',
			12 * MIN,
		],
		[
			'no cadence yet, one save seen',
			{medianSaveIntervalS: null, lastSaveAgeS: 5 * MIN},
			'time limit in 42 min; no save cadence yet; the last save was 5 min ago — up to 47 min of work lost if none comes; the SIGTERM warning comes 2 m 00 s before the end',
			'ok',
			47 * MIN,
		],
		[
			'no save seen at all',
			{medianSaveIntervalS: null, lastSaveAgeS: null},
			'time limit in 42 min; no save seen yet — all the work is at risk; the SIGTERM warning comes 2 m 00 s before the end',
			// The words say all the work is at risk: the level says so too.
			'warn',
			null,
		],
		[
			'a cadence without the last save age',
			{lastSaveAgeS: null},
			'time limit in 42 min; at the usual 30 min cadence up to 30 min of work lost; the SIGTERM warning comes 2 m 00 s before the end',
			'ok',
			30 * MIN,
		],
		[
			'--signal=USR1@90: 1 m 30 s, not "2 min"; beside a save that took 100 s, the lead is visibly the shorter',
			{warningSignal: 'USR1', warningLeadS: 90, lastSaveDurationS: 100},
			'time limit in 42 min; at the usual 30 min cadence the last save lands 12 min before the end — up to 12 min of work lost; the SIGUSR1 warning comes 1 m 30 s before the end, less than the last save took (1 m 40 s)',
			'warn',
			12 * MIN,
		],
		['UNLIMITED', {timeLeftS: null}, 'no time limit (UNLIMITED)', 'ok', null],
		[
			'the limit reached',
			{timeLeftS: 0, lastSaveAgeS: 7 * MIN},
			'time limit reached; at the usual 30 min cadence no save comes before the end; the last was 7 min ago — up to 7 min of work lost; the SIGTERM warning comes 2 m 00 s before the end',
			'ok',
			7 * MIN,
		],
	])('%s', (_name, change, text, level, workAtRiskS) => {
		expect(timeAtRisk({...base, ...change})).toEqual({text, level, workAtRiskS});
	});
});
