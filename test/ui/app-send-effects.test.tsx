import {cleanup, render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import type {SaveExpectation, SaveOutcome} from '../../src/checkpoints/save-attribution.js';
import type {Job, RankSet, Snapshot} from '../../src/core/types.js';
import type {SendResult} from '../../src/ranks/send.js';
import type {SignalName} from '../../src/ranks/signals.js';
import type {SessionActions} from '../../src/session/actions.js';
import App from '../../src/ui/app.js';
import type {TuiSession} from '../../src/ui/tui-session.js';
import {press, untilFrame as until} from '../helpers/ink.js';
import {checkpoint, GIB, job, jobSet, rank, twoJobs} from './fixtures.js';
import {screenData} from './screen-data.js';
import {NO_HISTORY} from './no-history.js';

// What the app does with a send, against a scripted session: the job is looked up again when the send runs
// (only its ranks still there get the signal; a job gone gets nothing), the save is watched only for RUN_DIR's
// job, and an emergency's job ending before its checkpoint is the answer. Snapshots are published by hand.

const DOWN = '\u001B[B';
const ESC = '\u001B';

interface Sent {
	readonly signal: SignalName;
	readonly job: string;
	readonly jobPids: readonly number[];
	readonly pids: readonly number[] | undefined;
}

/** A session whose snapshots the test publishes and whose actions record what they are asked. */
function scripted(ranks: RankSet) {
	let snapshot: Snapshot = {
		...screenData({gpus: 0, ranks: 0, checkpoints: 0, alerts: 0, ranksAvailable: true, checkpointsAvailable: false})
			.snapshot,
		ranks,
		time: Date.now(),
	};
	const listeners = new Set<(s: Snapshot) => void>();
	const sends: Sent[] = [];
	const watches: {sinceMs: number; expect: SaveExpectation; resolve: (o: SaveOutcome) => void}[] = [];
	const actions: SessionActions = {
		signalOf: action => (action === 'save' ? 'SIGUSR1' : 'SIGTERM'),
		send: async (signal, job, pids) => {
			sends.push({signal, job: job.id, jobPids: job.ranks.map(r => r.pid), pids});
			return (pids ?? job.ranks.map(r => r.pid)).map(
				pid => ({rank: null, pid, outcome: 'sent', reason: null}) as unknown as SendResult,
			);
		},
		awaitSave: (sinceMs, expect) => new Promise(resolve => watches.push({sinceMs, expect, resolve})),
		runDir: '/runs/a',
		timeoutS: 120,
		analyze: async () => [],
		rankDetail: () => null,
	};
	const session: TuiSession = {
		host: 'node1',
		readonly: false,
		monitor: {
			subscribe: listener => {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
			getSnapshot: () => snapshot,
			...NO_HISTORY,
		},
		recorder: {trouble: {get: () => null, subscribe: () => () => undefined}},
		actions,
		start: () => undefined,
	};
	const publish = (next: RankSet): void => {
		snapshot = {...snapshot, ranks: next, time: Date.now(), tick: snapshot.tick + 1};
		for (const listener of [...listeners]) listener(snapshot);
	};
	return {session, sends, watches, publish, listeners};
}

afterEach(cleanup);

// Job A (torchrun:4242, pids 10000–10001) is RUN_DIR's; job B (torchrun:5353, pids 30000–30002) is not.
const both = twoJobs({runDir: '/runs/a'});
const [jobA, jobB] = both.jobs as [Job, Job];

describe('a send', () => {
	test("goes to the cursor's job with its pids; another job than RUN_DIR's is not watched", async () => {
		const {session, sends, watches} = scripted(both);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:5353'));
		await press(stdin, DOWN, DOWN, 's');
		await until(lastFrame, f => f.includes('Send SIGUSR1 (save) to job torchrun:5353?'));
		await press(stdin, 'y');
		await until(lastFrame, f => f.includes('SIGUSR1 (save) to job torchrun:5353: sent 3'));
		expect(sends).toEqual([
			{signal: 'SIGUSR1', job: 'torchrun:5353', jobPids: [30_000, 30_001, 30_002], pids: [30_000, 30_001, 30_002]},
		]);
		await press(stdin, ESC);
		await until(lastFrame, f => f.includes("save not watched: RUN_DIR is not this job's"));
		expect(watches).toEqual([]);
	});

	test('only the ranks still in the job when it runs; a job gone by then gets nothing', async () => {
		const {session, sends, publish} = scripted(both);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:4242'));
		await press(stdin, 's');
		await until(lastFrame, f => f.includes('Send SIGUSR1 (save) to job torchrun:4242?'));
		// Rank 1 of A leaves while the box is open.
		publish(jobSet([{...jobA, ranks: [jobA.ranks[0]!]}, jobB]));
		await until(lastFrame, f => !f.includes('pid 10001'));
		await press(stdin, 'y');
		await until(lastFrame, f => f.includes('to job torchrun:4242: sent 1'));
		expect(sends.map(s => s.pids)).toEqual([[10_000]]);

		await press(stdin, ESC, 'e');
		await until(lastFrame, f => f.includes('Send SIGTERM (emergency checkpoint) to job torchrun:4242?'));
		publish(jobSet([jobB]));
		await until(lastFrame, f => f.includes('job torchrun:4242 is no longer running: nothing will be sent'));
		await press(stdin, 'y');
		await until(lastFrame, f => f.includes('SIGTERM (emergency checkpoint) to job torchrun:4242: nothing sent'));
		expect(lastFrame()).toContain('job torchrun:4242 is gone: nothing was sent');
		expect(sends).toHaveLength(1);
	});
});

describe("the save of RUN_DIR's job", () => {
	test('a save is watched as manual; the checkpoint ends the wait', async () => {
		const {session, watches} = scripted(both);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:4242'));
		await press(stdin, 's', 'y', ESC);
		await until(lastFrame, f => f.includes('waiting for checkpoint… (SIGUSR1 to job torchrun:4242 sent'));
		expect(watches.map(w => w.expect)).toEqual(['manual']);
		watches[0]!.resolve({checkpoint: checkpoint(700, 0), attributed: false, note: 'next checkpoint, may be periodic'});
		const frame = await until(lastFrame, f => f.includes('checkpoint_step_700 in '));
		expect(frame).toMatch(/WARN checkpoint_step_700 in [\d.]+ s — next checkpoint, may be periodic/);
	});

	test('an emergency whose job ends first: the exit is said; a checkpoint seen later still replaces it', async () => {
		const {session, watches, publish} = scripted(both);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:4242'));
		await press(stdin, 'e', 'y', ESC);
		await until(lastFrame, f => f.includes('waiting for checkpoint… (SIGTERM to job torchrun:4242'));
		expect(watches.map(w => w.expect)).toEqual(['emergency']);
		const ended = {id: 'torchrun:4242', launcher: null, ranks: 2, runDir: '/runs/a', exit: {code: 99, signal: null}};
		publish(jobSet([jobB], {ended: [{...ended, endedAt: Date.now()}]}));
		await until(lastFrame, f =>
			f.includes('WARN no emergency checkpoint seen: job torchrun:4242 exited after SIGTERM (exit 99'),
		);
		watches[0]!.resolve({checkpoint: checkpoint(701, 0, {kind: 'emergency'}), attributed: true, note: null});
		await until(lastFrame, f => /» saved checkpoint_step_701 in [\d.]+ s/.test(f));
	});

	test('an emergency checkpoint before the end: the end is no news', async () => {
		const {session, watches, publish, listeners} = scripted(both);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:4242'));
		const subscribed = listeners.size;
		await press(stdin, 'e', 'y', ESC);
		await until(lastFrame, f => f.includes('waiting for checkpoint…'));
		// The job's end is watched while the save is awaited, and no longer once it came.
		expect(listeners.size).toBe(subscribed + 1);
		watches[0]!.resolve({checkpoint: checkpoint(702, 0, {kind: 'emergency'}), attributed: true, note: null});
		await until(lastFrame, f => /» saved checkpoint_step_702 in [\d.]+ s/.test(f));
		expect(listeners.size).toBe(subscribed);
		const ended = {id: 'torchrun:4242', launcher: null, ranks: 2, runDir: '/runs/a', exit: {code: 99, signal: null}};
		publish(jobSet([jobB], {ended: [{...ended, endedAt: Date.now()}]}));
		// Drawn: the app has had this snapshot, and its listener with it.
		await until(lastFrame, f => f.includes('RANKS 3 (world 3) · job torchrun:5353'));
		expect(lastFrame()).toMatch(/» saved checkpoint_step_702/);
		expect(lastFrame()).not.toContain('no emergency checkpoint');
	});
});

describe('keys that arrive together', () => {
	test('a held key (`jj` in one read) moves twice; pasted text (`ye`) in a confirm box sends nothing', async () => {
		const {session, sends} = scripted(both);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:5353'));
		// One write is one read for Ink: the two presses of a key repeat.
		stdin.write('jj');
		await until(lastFrame, f => f.includes('target: job torchrun:5353'));
		await press(stdin, 's');
		await until(lastFrame, f => f.includes('Send SIGUSR1 (save) to job torchrun:5353?'));
		stdin.write('ye');
		await press(stdin, ESC);
		await until(lastFrame, f => !f.includes('Send SIGUSR1'));
		expect(sends).toEqual([]);
	});
});

describe('q in a box', () => {
	test('closes help, never the app: the main screen is back and still takes keys', async () => {
		const {session} = scripted(both);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:5353'));
		await press(stdin, '?');
		await until(lastFrame, f => f.includes('traintop keys'));
		await press(stdin, 'q');
		await until(lastFrame, f => !f.includes('traintop keys') && f.includes('JOB torchrun:5353'));
		// Still running: s opens a confirm box.
		await press(stdin, 's');
		await until(lastFrame, f => f.includes('Send SIGUSR1 (save) to job torchrun:4242?'));
	});
});

describe('o orders the ranks', () => {
	test('by RSS within each job: the rows move, the title says so, the cursor stays on its rank', async () => {
		const heavy = jobSet([
			job('torchrun:100', [rank(0, {pid: 100, rssBytes: 1 * GIB}), rank(1, {pid: 101, rssBytes: 5 * GIB})]),
		]);
		const {session} = scripted(heavy);
		const {lastFrame, stdin} = render(<App session={session} />);
		const order = (f: string) => [...f.matchAll(/^[› ][● ] +\d+ +(\d+) /gm)].map(m => Number(m[1]));
		await until(lastFrame, f => order(f).join() === '100,101');
		await press(stdin, 'o');
		const sorted = await until(lastFrame, f => order(f).join() === '101,100');
		expect(sorted).toContain('sorted by RSS ↓');
		// The cursor was on pid 100 (the first row); it is still on it, now the second row.
		expect(sorted).toMatch(/^› +0 +100 /m);
	});
});
