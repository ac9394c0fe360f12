import {describe, expect, test} from 'vitest';
import {checkpointEvents, rankEvents} from '../../src/core/job-events.js';
import type {DepartedProcess, ExitStatus, JobEvent, RankProcess} from '../../src/core/types.js';
import {nextStall, type StallState} from '../../src/ranks/stall.js';
import {localTimeShort} from '../../src/format/time.js';
import {cadenceEvery300, checkpoint, checkpointIndex, NOW} from '../helpers/checkpoint-data.js';
import {ended, job, rankSet, T0} from './job-data.js';

const ID = 'torchrun:4200';

/** What a test reads of an event: its kind, level and words. */
const brief = (events: readonly JobEvent[]) => events.map(e => `${e.kind} ${e.level} ${e.text}`);

describe('rank-exited', () => {
	const departed = (exit: ExitStatus | null): DepartedProcess => ({role: 'rank', job: ID, rank: 2, pid: 4203, exit});
	test.each([
		[{code: 0, signal: null}, 'ok', 'rank 2 (pid 4203) of torchrun:4200 exited with code 0'],
		[{code: 1, signal: null}, 'critical', 'rank 2 (pid 4203) of torchrun:4200 exited with code 1'],
		[{code: null, signal: 'SIGKILL'}, 'critical', 'rank 2 (pid 4203) of torchrun:4200 was killed by SIGKILL'],
		// The requeue convention: a planned exit, not a crash.
		[{code: 99, signal: null}, 'warn', 'rank 2 (pid 4203) of torchrun:4200 exited with code 99 — saved for requeue'],
		[
			null,
			'warn',
			'rank 2 (pid 4203) of torchrun:4200 is gone (its exit status was not readable: its parent reaped it first)',
		],
	])('%o → %s: %s', (exit, level, text) => {
		const before = rankSet([job(ID, 4)]);
		const all = job(ID, 4);
		const after = rankSet([{...all, ranks: all.ranks.filter(r => r.rank !== 2)}], {departed: [departed(exit)]});
		const events = rankEvents(before, after, T0);
		expect(events).toEqual([{time: T0, kind: 'rank-exited', job: ID, rank: 2, pid: 4203, level, text, exit}]);
	});

	test("a launcher's departure is told by its job's end, not on its own", () => {
		const launcher: DepartedProcess = {role: 'launcher', job: ID, rank: null, pid: 4200, exit: {code: 1, signal: null}};
		const after = rankSet([], {departed: [launcher], ended: [ended(ID, {code: 1, signal: null})]});
		expect(brief(rankEvents(rankSet([job(ID, 0)]), after, T0))).toEqual([
			'job-ended critical job torchrun:4200 ended, exit 1',
		]);
	});
});

describe('job-ended', () => {
	test.each([
		[{code: 99, signal: null}, 'warn', 'job torchrun:4200 ended, exit 99 — saved for requeue'],
		[{code: 0, signal: null}, 'ok', 'job torchrun:4200 ended, exit 0'],
		[{code: 1, signal: null}, 'critical', 'job torchrun:4200 ended, exit 1'],
		[{code: null, signal: 'SIGKILL'}, 'critical', 'job torchrun:4200 ended, killed by SIGKILL'],
		[null, 'warn', 'job torchrun:4200 ended, exit status unknown'],
	])('%o → %s: %s', (exit, level, text) => {
		const events = rankEvents(rankSet([job(ID, 4)]), rankSet([], {ended: [ended(ID, exit)]}), T0);
		expect(events).toEqual([{time: T0, kind: 'job-ended', job: ID, rank: null, pid: 4200, level, text, exit}]);
	});

	test('an ended job is told once; the same id ending again later is a new end', () => {
		const first = ended(ID, {code: 0, signal: null}, T0);
		const gone = rankSet([], {ended: [first]});
		expect(rankEvents(gone, rankSet([], {ended: [first]}), T0 + 2000)).toEqual([]);
		const again = ended(ID, {code: 1, signal: null}, T0 + 60_000);
		expect(brief(rankEvents(gone, rankSet([], {ended: [first, again]}), T0 + 60_000))).toEqual([
			'job-ended critical job torchrun:4200 ended, exit 1',
		]);
	});

	test('the bounded history dropping its oldest is not an end', () => {
		const history = Array.from({length: 10}, (_, i) => ended(`pid:${i}`, {code: 0, signal: null}, T0 + i));
		const newest = ended('pid:10', {code: 0, signal: null}, T0 + 10);
		const events = rankEvents(rankSet([], {ended: history}), rankSet([], {ended: [...history.slice(1), newest]}), T0);
		expect(events.map(e => e.job)).toEqual(['pid:10']);
	});
});

describe('stopped, stalled and running again, rank by rank', () => {
	const two = (each: (n: number) => Partial<RankProcess>) => rankSet([job(ID, 2, each)]);
	const idle = two(() => ({}));

	test('stopped; first seen stopped; continued', () => {
		const stopped = two(n => (n === 1 ? {stopped: true, state: 'T'} : {}));
		expect(rankEvents(idle, stopped, T0)).toEqual([
			{
				time: T0,
				kind: 'rank-stopped',
				job: ID,
				rank: 1,
				pid: 4202,
				level: 'warn',
				text: 'rank 1 (pid 4202) of torchrun:4200 stopped (SIGSTOP, SIGTSTP or a debugger)',
			},
		]);
		expect(brief(rankEvents(null, stopped, T0))).toEqual([
			'rank-stopped warn rank 1 (pid 4202) of torchrun:4200 stopped (SIGSTOP, SIGTSTP or a debugger)',
		]);
		expect(rankEvents(stopped, stopped, T0)).toEqual([]);
		expect(brief(rankEvents(stopped, idle, T0))).toEqual([
			'rank-resumed ok rank 1 (pid 4202) of torchrun:4200 continued (it was stopped)',
		]);
	});

	test("a new process on a stopped rank's pid (another start time) is another process", () => {
		const stopped = two(n => (n === 1 ? {stopped: true, state: 'T'} : {}));
		const reused = two(n => (n === 1 ? {stopped: true, state: 'T', startTime: 12_345} : {}));
		expect(brief(rankEvents(stopped, reused, T0))).toEqual([
			'rank-stopped warn rank 1 (pid 4202) of torchrun:4200 stopped (SIGSTOP, SIGTSTP or a debugger)',
		]);
	});

	test('stalled, then using CPU again', () => {
		const stalled = two(n => (n === 0 ? {stalled: true, state: 'S'} : {}));
		expect(brief(rankEvents(idle, stalled, T0))).toEqual([
			'rank-stalled warn rank 0 (pid 4201) of torchrun:4200 stalled: state S but no CPU time for the stall window',
		]);
		expect(rankEvents(stalled, stalled, T0)).toEqual([]);
		expect(brief(rankEvents(stalled, idle, T0))).toEqual([
			'rank-resumed ok rank 0 (pid 4201) of torchrun:4200 is using CPU again',
		]);
	});

	test('stalled then stopped (and back) is a stop and a stall, never a resume between', () => {
		const stalled = two(n => (n === 0 ? {stalled: true} : {}));
		const stopped = two(n => (n === 0 ? {stopped: true, state: 'T'} : {}));
		expect(rankEvents(stalled, stopped, T0).map(e => e.kind)).toEqual(['rank-stopped']);
		expect(rankEvents(stopped, stalled, T0).map(e => e.kind)).toEqual(['rank-stalled']);
	});
});

describe('a whole job going quiet is one event', () => {
	const four = (each: (n: number) => Partial<RankProcess>) => rankSet([job(ID, 4, each)]);
	const halfStalled = four(n => ({stalled: n < 2}));
	const allStalled = four(() => ({stalled: true}));

	test('the last ranks stalling: one job-stalled, no rank-stalled', () => {
		expect(rankEvents(halfStalled, allStalled, T0)).toEqual([
			{
				time: T0,
				kind: 'job-stalled',
				job: ID,
				rank: null,
				pid: null,
				level: 'critical',
				text: 'job torchrun:4200 stalled: all 4 ranks without CPU time for the stall window — a hung collective?',
			},
		]);
		expect(rankEvents(allStalled, allStalled, T0)).toEqual([]);
		// From nothing stalled at all, still one event.
		expect(
			rankEvents(
				four(() => ({})),
				allStalled,
				T0,
			).map(e => e.kind),
		).toEqual(['job-stalled']);
	});

	test('stalled or stopped, and all stopped (a ^Z, a debugger: warn)', () => {
		const mixed = four(n => (n === 3 ? {stopped: true, state: 'T'} : {stalled: true}));
		expect(brief(rankEvents(halfStalled, mixed, T0))).toEqual([
			'job-stalled critical job torchrun:4200 stalled: all 4 ranks without CPU time for the stall window or stopped — a hung collective?',
		]);
		const stopped = four(() => ({stopped: true, state: 'T'}));
		expect(
			brief(
				rankEvents(
					four(() => ({})),
					stopped,
					T0,
				),
			),
		).toEqual(['job-stalled warn job torchrun:4200 stopped: all 4 ranks stopped (SIGSTOP, SIGTSTP or a debugger)']);
	});

	test('a lone rank: the job event names it', () => {
		const lone = (stalled: boolean) => rankSet([job('pid:501', 1, () => ({pid: 501, stalled}))]);
		expect(rankEvents(lone(false), lone(true), T0)).toEqual([
			{
				time: T0,
				kind: 'job-stalled',
				job: 'pid:501',
				rank: 0,
				pid: 501,
				level: 'critical',
				text: 'job pid:501 stalled: its one rank without CPU time for the stall window — a hung collective?',
			},
		]);
		expect(brief(rankEvents(lone(true), lone(false), T0))).toEqual([
			'job-resumed ok job pid:501 running again: 1 of 1 rank using CPU',
		]);
	});

	test('the end of it: one job-resumed; ranks resuming later are told one by one', () => {
		const oneBack = four(n => ({stalled: n !== 0}));
		expect(rankEvents(allStalled, oneBack, T0)).toEqual([
			{
				time: T0,
				kind: 'job-resumed',
				job: ID,
				rank: null,
				pid: null,
				level: 'ok',
				text: 'job torchrun:4200 running again: 1 of 4 ranks using CPU',
			},
		]);
		expect(
			brief(
				rankEvents(
					oneBack,
					four(n => ({stalled: n > 1})),
					T0,
				),
			),
		).toEqual(['rank-resumed ok rank 1 (pid 4202) of torchrun:4200 is using CPU again']);
	});

	test('jobs are judged apart: one job all stalled, a rank of another stalled', () => {
		const other = 'torchrun:5200';
		const before = rankSet([job(ID, 2), job(other, 2, n => ({pid: 5201 + n}))]);
		const after = rankSet([
			job(ID, 2, () => ({stalled: true})),
			job(other, 2, n => ({pid: 5201 + n, stalled: n === 1})),
		]);
		expect(rankEvents(before, after, T0).map(e => `${e.kind} ${e.job} ${e.pid}`)).toEqual([
			'job-stalled torchrun:4200 null',
			'rank-stalled torchrun:5200 5202',
		]);
	});

	test('a job whose ranks are all gone (the launcher restarts them) has not resumed', () => {
		const restarting = rankSet([{...job(ID, 4), ranks: []}]);
		expect(rankEvents(allStalled, restarting, T0).map(e => e.kind)).toEqual([]);
	});
});

test('no flapping: a rank busy one sample in five is stalled once and never resumed (2 minutes, the real hysteresis)', () => {
	const everyMs = 2000;
	// stallAfter: 3 samples without CPU progress.
	const stallAfterMs = 3 * everyMs;
	let stall: StallState | undefined;
	let ticks = 0;
	let previous: ReturnType<typeof rankSet> | null = null;
	const events: JobEvent[] = [];
	const stalledSamples: boolean[] = [];
	for (let sample = 0; sample < 60; sample++) {
		const now = T0 + sample * everyMs;
		// Busy 1 sample, idle 4.
		if (sample % 5 === 0) ticks += 50;
		stall = nextStall(stall, {ticks, state: 'S', now}, stallAfterMs);
		stalledSamples.push(stall.stalled);
		const stalled = stall.stalled;
		const next = rankSet([job(ID, 2, n => ({stalled: n === 1 && stalled}))], {at: now});
		events.push(...rankEvents(previous, next, now));
		previous = next;
	}
	// The pattern did reach the window (so the test is not vacuous), and then the hysteresis held it.
	expect(stalledSamples.indexOf(true)).toBe(3);
	expect(events.map(e => `${e.kind} ${e.rank}`)).toEqual(['rank-stalled 1']);
});

describe('checkpointEvents', () => {
	const before = checkpointIndex({
		lastSave: {
			time: NOW - 30 * 60_000,
			ageS: 1800,
			medianIntervalS: 900,
			periodicTime: NOW - 30 * 60_000,
			overdue: false,
		},
	});

	test('a checkpoint that became complete; partial ones and the first index say nothing', () => {
		const saved = checkpoint(1600, 0);
		const partial = checkpoint(1700, 0, {status: 'partial'});
		const finished = before.checkpoints.map(c => (c.status === 'partial' ? {...c, status: 'complete' as const} : c));
		const after = {...before, checkpoints: [...finished, saved, partial]};
		expect(checkpointEvents(before, after, T0, ID)).toEqual([
			{
				time: T0,
				kind: 'save-seen',
				job: ID,
				rank: null,
				pid: null,
				level: 'ok',
				text: 'saved checkpoint_step_1510 (periodic, step 1510, 100 MiB)',
				checkpoint: 'checkpoint_step_1510',
			},
			{
				time: T0,
				kind: 'save-seen',
				job: ID,
				rank: null,
				pid: null,
				level: 'ok',
				text: 'saved checkpoint_step_1600 (periodic, step 1600, 512 MiB)',
				checkpoint: 'checkpoint_step_1600',
			},
		]);
		expect(checkpointEvents(null, after, T0, ID)).toEqual([]);
		expect(checkpointEvents(after, after, T0, ID)).toEqual([]);
		expect(checkpointEvents(after, null, T0, ID)).toEqual([]);
		const manual = checkpoint(1650, 0, {kind: 'manual', step: null});
		expect(brief(checkpointEvents(before, {...before, checkpoints: [manual]}, T0, null))).toEqual([
			'save-seen ok saved checkpoint_step_1650 (manual, 512 MiB)',
		]);
	});

	test('overdue once, when it becomes so, naming the save that has not come', () => {
		// A manual save 5 min ago; the last periodic one (step 1500) 30 min ago, every 300 steps at 1/3 step/s: step
		// 1800 was due 15 min ago.
		const nextAt = NOW - 15 * 60_000;
		const overdue = {
			...before,
			lastSave: {
				time: NOW - 5 * 60_000,
				ageS: 300,
				medianIntervalS: 900,
				periodicTime: NOW - 30 * 60_000,
				overdue: true,
			},
			cadence: cadenceEvery300(nextAt),
		};
		expect(checkpointEvents(before, overdue, T0, ID)).toEqual([
			{
				time: T0,
				kind: 'overdue',
				job: ID,
				rank: null,
				pid: null,
				level: 'critical',
				text: `saves OVERDUE: the save due at step 1800 (~${localTimeShort(nextAt, NOW)}) has not come; 15 m 00 s late (every 300 steps at 0.33 steps/s)`,
				checkpoint: 'checkpoint_step_1500',
			},
		]);
		expect(checkpointEvents(overdue, {...overdue, lastSave: {...overdue.lastSave, ageS: 400}}, T0, ID)).toEqual([]);
		// Overdue already in the first index is news too: nobody has been told.
		expect(checkpointEvents(null, overdue, T0, ID).map(e => e.kind)).toEqual(['overdue']);
	});

	test("an index without a cadence (built by hand) gives the last periodic save's age", () => {
		const late = {
			...before,
			lastSave: {time: NOW - 1800_000, ageS: 1800, medianIntervalS: 900, periodicTime: NOW - 1800_000, overdue: true},
		};
		expect(checkpointEvents(before, late, T0, ID)[0]?.text).toBe('saves OVERDUE: last periodic save 30 min ago');
	});
});
