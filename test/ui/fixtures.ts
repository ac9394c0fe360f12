import React from 'react';
import {expect} from 'vitest';
import {Text} from 'ink';
import {render} from 'ink-testing-library';
import type {
	Alert,
	EndedJob,
	Job,
	Level,
	MetricStatus,
	RankProcess,
	RankSet,
	SignalState,
} from '../../src/core/types.js';

// Crafted snapshot parts for the pane tests, and the frame checks every pane test makes.

import {GIB, NOW} from '../helpers/checkpoint-data.js';

export {cadenceEvery300, checkpoint, checkpointIndex, GIB, NOW, seedPlusHf} from '../helpers/checkpoint-data.js';

export function signal(disposition: SignalState['disposition'], extra: Partial<SignalState> = {}): SignalState {
	return {disposition, blocked: false, pending: false, terminatesByDefault: true, ...extra};
}

/** A rank that handles TERM, INT and USR1 and has no USR2 handler (the usual torch job). */
export function rank(n: number, extra: Partial<RankProcess> = {}): RankProcess {
	return {
		rank: n,
		localRank: n % 8,
		worldSize: null,
		pid: 10_000 + n,
		ppid: 9_999,
		startTime: 1000 + n,
		startedAt: NOW - 3_600_000,
		host: 'node1',
		cmd: '/opt/conda/bin/python3 -u train.py --config big.yaml',
		state: 'S',
		cpuPercent: 98,
		rssBytes: 3.1 * GIB,
		gpuMemoryBytes: 12 * GIB,
		signals: {
			SIGTERM: signal('handled'),
			SIGINT: signal('handled'),
			SIGUSR1: signal('handled'),
			SIGUSR2: signal('default'),
			SIGCONT: signal('default', {terminatesByDefault: false}),
			SIGHUP: signal('default'),
			SIGQUIT: signal('default'),
		},
		workers: [20_000 + n * 10, 20_001 + n * 10],
		task: null,
		stalled: false,
		stopped: false,
		job: JOB_ID,
		...extra,
	};
}

/** The job rankSet() makes: torchrun's elastic agent, pid 9999. */
const JOB_ID = 'torchrun:9999';
const LAUNCHER = {pid: 9_999, startTime: 999, cmd: '/opt/conda/bin/torchrun --nproc_per_node 8 train.py'};

/** A job of these ranks (each given the job's id); world size from the ranks, every local rank present. */
export function job(id: string, ranks: readonly RankProcess[], extra: Partial<Job> = {}): Job {
	return {
		id,
		identity: 'elastic',
		launcher: null,
		ranks: ranks.map(r => ({...r, job: id})),
		worldSize: ranks.find(r => r.worldSize !== null)?.worldSize ?? null,
		localWorldSize: null,
		allLocalRanksPresent: true,
		runDir: null,
		cwd: null,
		task: null,
		...extra,
	};
}

/** A rank set of these jobs: its ranks job by job, the launcher only when there is one job. */
export function jobSet(jobs: readonly Job[], extra: Partial<RankSet> = {}): RankSet {
	return {
		ranks: jobs.flatMap(j => j.ranks),
		jobs,
		launcher: jobs.length === 1 ? jobs[0]!.launcher : null,
		departed: [],
		ended: [],
		runDirMatch: null,
		sampledAt: NOW,
		...extra,
	};
}

/** One torchrun job (launcher 9999) of `count` ranks, pids 10000 + rank. */
export function rankSet(
	count: number,
	extra: Partial<RankSet> = {},
	each: (n: number) => Partial<RankProcess> = () => ({}),
): RankSet {
	const ranks = Array.from({length: count}, (_, n) => rank(n, {worldSize: count, ...each(n)}));
	return jobSet([job(JOB_ID, ranks, {launcher: LAUNCHER})], extra);
}

/** Two jobs: torchrun:4242 with ranks 0–1 (pids 10000, 10001) and torchrun:5353 with ranks 0–2 (pids 30000…). */
export function twoJobs(extraA: Partial<Job> = {}, extraB: Partial<Job> = {}): RankSet {
	const a = job('torchrun:4242', [rank(0, {worldSize: 2}), rank(1, {worldSize: 2})], {
		launcher: {pid: 4242, startTime: 42, cmd: 'torchrun --nproc_per_node 2 train.py --out /runs/a'},
		...extraA,
	});
	const b = job(
		'torchrun:5353',
		[0, 1, 2].map(n => rank(n, {pid: 30_000 + n, worldSize: 3, ppid: 5353})),
		{launcher: {pid: 5353, startTime: 53, cmd: 'torchrun --nproc_per_node 3 finetune.py'}, ...extraB},
	);
	return jobSet([a, b]);
}

/** A job that ended `secondsAgo` before NOW. */
export function endedJob(id: string, secondsAgo: number, extra: Partial<EndedJob> = {}): EndedJob {
	return {id, launcher: null, ranks: 4, runDir: null, endedAt: NOW - secondsAgo * 1000, exit: null, ...extra};
}

export function alert(
	minutesAgo: number,
	metric: string,
	from: Level,
	to: Level,
	value: number,
	threshold = 90,
): Alert {
	return {time: NOW - minutesAgo * 60_000, metric, value, threshold, from, to};
}

export function status(value: number, level: Level, threshold: number, peak = value): MetricStatus {
	return {value, level, peak, threshold};
}

/** The frame's lines (an absent frame is no lines). */
export function frameLines(frame: string | undefined): string[] {
	return frame === undefined || frame === '' ? [] : frame.split('\n');
}

/** Every pane test's promise: no more lines than `height`, none wider than `width`. */
export function expectFits(frame: string | undefined, width: number, height: number): string[] {
	const lines = frameLines(frame);
	expect(lines.length, `lines of\n${frame}`).toBeLessThanOrEqual(height);
	for (const line of lines) expect([...line].length, `width of "${line}"`).toBeLessThanOrEqual(width);
	return lines;
}

/**
 * Renders as on a terminal `columns` wide. ink-testing-library's stdout is 100 columns, and Ink
 * cannot draw a layout wider than its stdout faithfully (a line's text past column 100 shifts).
 */
export function renderOnTerminal(tree: React.ReactElement, columns: number): ReturnType<typeof render> {
	const instance = render(React.createElement(Text, null, ''));
	Object.defineProperty(instance.stdout, 'columns', {value: columns, configurable: true});
	instance.rerender(tree);
	return instance;
}
