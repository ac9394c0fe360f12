import {cleanup, render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import type {JobEvent, RankProcess, RankSet, Snapshot} from '../../src/core/types.js';
import {rankDetail} from '../../src/ranks/detail.js';
import type {SessionActions} from '../../src/session/actions.js';
import type {ProcReader} from '../../src/system/procfs.js';
import App from '../../src/ui/app.js';
import type {TuiSession} from '../../src/ui/tui-session.js';
import {press, untilFrame as until} from '../helpers/ink.js';
import {twoJobs} from './fixtures.js';
import {screenData} from './screen-data.js';
import {NO_HISTORY} from './no-history.js';

// Enter on a rank in the app, against a scripted session: the box shows what the session's rankDetail read of
// the cursor's rank (its whole command line, wrapped), and Esc or q goes back to the ranks.

const DOWN = '\u001B[B';
const ENTER = '\r';
const ESC = '\u001B';

/** Longer than the 100-column test terminal: the box must wrap it, not cut it. */
const ARGV = [
	'/opt/conda/bin/python3',
	'-u',
	'train.py',
	'--config',
	'configs/very/long/path/experiment-2026-11-22.yaml',
	'--lr',
	'0.0003',
	'--name',
	'two words',
	'--out',
	'/runs/a/checkpoints',
	'--resume-from',
	'/runs/a/checkpoints/step_700',
];

/** /proc as the detail reads it: every rank alive (its own start time), with ARGV and two launch variables. */
function fakeProc(rank: RankProcess, gone: ReadonlySet<number>): ProcReader {
	return {
		listPids: () => [],
		owner: () => 1000,
		stat: pid =>
			gone.has(pid)
				? null
				: {
						pid,
						comm: 'python3',
						state: 'S',
						ppid: rank.ppid,
						pgrp: pid,
						session: pid,
						utime: 0,
						stime: 0,
						numThreads: 1,
						startTime: rank.startTime,
						rssPages: 0,
						exitCode: null,
					},
		status: () => null,
		environ: () =>
			new Map([
				['RANK', String(rank.rank)],
				['MASTER_ADDR', '10.0.0.7'],
			]),
		cmdline: () => [...ARGV],
		cwd: () => '/runs/a',
		openFiles: () => null,
	};
}

/** A session whose snapshot the test sets and whose rankDetail records the pids it is asked for. */
function scripted(ranks: RankSet, recentEvents: readonly JobEvent[] = []) {
	const snapshot: Snapshot = {
		...screenData({gpus: 0, ranks: 0, checkpoints: 0, alerts: 0, ranksAvailable: true, checkpointsAvailable: false})
			.snapshot,
		ranks,
		recentEvents,
		time: Date.now(),
	};
	const asked: number[] = [];
	const gone = new Set<number>();
	const actions: SessionActions = {
		signalOf: action => (action === 'save' ? 'SIGUSR1' : 'SIGTERM'),
		send: async () => [],
		awaitSave: null,
		runDir: null,
		timeoutS: 120,
		analyze: async () => [],
		rankDetail: rank => {
			asked.push(rank.pid);
			return rankDetail(rank, fakeProc(rank, gone), Date.now());
		},
	};
	const session: TuiSession = {
		host: 'node1',
		readonly: false,
		monitor: {subscribe: () => () => undefined, getSnapshot: () => snapshot, ...NO_HISTORY},
		recorder: {trouble: {get: () => null, subscribe: () => () => undefined}},
		actions,
		start: () => undefined,
	};
	return {session, asked, gone};
}

afterEach(cleanup);

// Job torchrun:4242 has ranks 0–1 (pids 10000, 10001); torchrun:5353 ranks 0–2 (pids 30000…).
const both = twoJobs();

describe('Enter on a rank', () => {
	test('opens its detail with the whole command line; Esc goes back to the ranks', async () => {
		const stall: JobEvent = {
			time: Date.now(),
			kind: 'rank-stalled',
			job: 'torchrun:4242',
			rank: 1,
			pid: 10_001,
			level: 'warn',
			text: 'rank 1 (pid 10001) stalled: no CPU time for 60 s',
		};
		const {session, asked} = scripted(both, [stall]);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:5353'));
		await press(stdin, DOWN, ENTER);
		const frame = await until(lastFrame, f => f.includes('rank 1 · pid 10001 · job torchrun:4242'));
		expect(asked).toEqual([10_001]);
		// Every argument is on the screen, none cut: the line is wider than the box, so it wraps.
		for (const arg of ARGV) expect(frame).toContain(arg === 'two words' ? "'two words'" : arg);
		expect(frame).toContain('MASTER_ADDR');
		expect(frame).toContain('RSS 3.1 GiB');
		expect(frame).not.toContain('JOB torchrun:5353');
		await press(stdin, ESC);
		await until(lastFrame, f => f.includes('JOB torchrun:5353') && !f.includes('pid 10001 · job'));
	});

	test('q goes back too, never quits: the ranks take keys again', async () => {
		const {session, asked} = scripted(both);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:5353'));
		await press(stdin, DOWN, DOWN, ENTER);
		await until(lastFrame, f => f.includes('rank 0 · pid 30000 · job torchrun:5353'));
		await press(stdin, 'q');
		await until(lastFrame, f => f.includes('JOB torchrun:5353') && !f.includes('pid 30000 · job'));
		await press(stdin, ENTER);
		await until(lastFrame, f => f.includes('rank 0 · pid 30000 · job torchrun:5353'));
		expect(asked).toEqual([30_000, 30_000]);
	});

	test('a rank that exited since the last scan: the box says so', async () => {
		const {session, gone} = scripted(both);
		gone.add(10_000);
		const {lastFrame, stdin} = render(<App session={session} />);
		await until(lastFrame, f => f.includes('JOB torchrun:4242'));
		await press(stdin, ENTER);
		const frame = await until(lastFrame, f => f.includes('it has exited since the last scan'));
		expect(frame).toContain('rank 0 · pid 10000 · job torchrun:4242: it has exited since the last scan');
		expect(frame).not.toContain('Launch variables');
	});
});
