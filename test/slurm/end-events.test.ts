import {describe, expect, test} from 'vitest';
import {SlurmEndWatch} from '../../src/slurm/end-events.js';
import type {SlurmView} from '../../src/slurm/types.js';
import type {JobEvent} from '../../src/core/types.js';
import {slurmOk} from '../helpers/slurm-job.js';
import {job, rankSet} from '../core/job-data.js';

// A SLURM step's end whose exit /proc could not read is held for the controller's answer (slurm/end-events.ts).
// The real thing, against a real SLURM, is test/slurm/job-end.test.ts; these are the rules for when to let go.

const T = 1_800_000_000_000;

/** The ranks' event for step 16.0 of job 16: its exit unknown (slurmstepd reaped the tasks). */
const stepEnd = (time: number, exit: JobEvent['exit'] = null): JobEvent => ({
	time,
	kind: 'job-ended',
	job: 'slurm:16.0',
	rank: null,
	pid: null,
	level: 'warn',
	text: 'job slurm:16.0 ended, exit status unknown',
	exit,
});

const running = (readAt: number): SlurmView => slurmOk(readAt);
const failed99 = (readAt: number): SlurmView =>
	slurmOk(readAt, {state: 'FAILED', reason: 'NonZeroExitCode', timeLeftS: null, exit: {code: 99, signal: null}});

describe('a watched SLURM step that ended with its exit unread', () => {
	test('is held, asks for a read, and goes out with the exit the controller gives', () => {
		const watch = new SlurmEndWatch();
		expect(watch.update([stepEnd(T)], running(T - 5000), T)).toEqual({events: [], readNow: true});
		const {events} = watch.update([], failed99(T + 300), T + 1000);
		expect(events).toEqual([
			{
				...stepEnd(T),
				level: 'warn',
				text: 'job slurm:16.0 ended; SLURM job 16 FAILED (NonZeroExitCode), exit 99 — saved for requeue',
				exit: {code: 99, signal: null},
			},
		]);
		// Said once: the job's own end is not a second event.
		expect(watch.update([], failed99(T + 15_000), T + 15_000).events).toEqual([]);
	});

	test('goes out as it was when an answer read after it still says RUNNING (the batch script goes on)', () => {
		const watch = new SlurmEndWatch();
		watch.update([stepEnd(T)], running(T - 5000), T);
		// An answer read before the step ended says nothing about it: still held.
		expect(watch.update([], running(T - 5000), T + 1000).events).toEqual([]);
		expect(watch.update([], running(T + 2000), T + 3000).events).toEqual([stepEnd(T)]);
	});

	test('goes out as it was when the controller does not answer within 30 s', () => {
		const watch = new SlurmEndWatch();
		watch.update([stepEnd(T)], running(T - 5000), T);
		const down: SlurmView = {
			status: 'unavailable',
			reason: 'slurmctld at vm:6817 not answering',
			readAt: T,
			last: null,
		};
		expect(watch.update([], down, T + 29_000).events).toEqual([]);
		expect(watch.update([], down, T + 31_000).events).toEqual([stepEnd(T)]);
	});

	test('a step of another job, or an exit /proc did read, is not held', () => {
		const watch = new SlurmEndWatch();
		const other = {...stepEnd(T), job: 'slurm:17.0'};
		const read = stepEnd(T, {code: 1, signal: null});
		expect(watch.update([other, read], running(T), T).events).toEqual([other, read]);
		expect(watch.update([stepEnd(T)], null, T).events).toEqual([stepEnd(T)]);
	});

	test("a job that ends with no step of its seen: its own event, once, with SLURM's words and level", () => {
		const watch = new SlurmEndWatch();
		const timeout = slurmOk(T, {
			state: 'TIMEOUT',
			reason: 'TimeLimit',
			timeLimitS: 60,
			timeLeftS: null,
			exit: {code: 143, signal: null},
		});
		expect(watch.update([], timeout, T).events).toEqual([
			{
				time: T,
				kind: 'job-ended',
				job: 'slurm:16',
				rank: null,
				pid: null,
				level: 'critical',
				text: 'SLURM job 16 ended: TIMEOUT (TimeLimit): its 1 m 00 s time limit reached, exit 143 (128 + SIGTERM)',
				exit: {code: 143, signal: null},
			},
		]);
		expect(watch.update([], timeout, T + 15_000).events).toEqual([]);
	});

	test("the controller's TIMEOUT before the step's ranks are gone: their end carries it, one event", () => {
		const watch = new SlurmEndWatch();
		const timeout = slurmOk(T, {state: 'TIMEOUT', reason: 'TimeLimit', timeLimitS: 60, timeLeftS: null, exit: null});
		const live = rankSet([job('slurm:16.0', 1)]);
		expect(watch.update([], timeout, T, live).events).toEqual([]);
		const {events} = watch.update([stepEnd(T + 2000)], timeout, T + 2000, rankSet([]));
		expect(events.map(e => [e.job, e.level, e.text])).toEqual([
			[
				'slurm:16.0',
				'critical',
				'job slurm:16.0 ended; SLURM job 16 TIMEOUT (TimeLimit): its 1 m 00 s time limit reached, exit status unknown',
			],
		]);
		// Ranks that outlive the hold do not keep the job's end unsaid.
		const other = new SlurmEndWatch();
		expect(other.update([], timeout, T, live).events).toEqual([]);
		expect(other.update([], timeout, T + 31_000, live).events.map(e => e.job)).toEqual(['slurm:16']);
	});
});
