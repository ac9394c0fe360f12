import {realpathSync} from 'node:fs';
import {hostname} from 'node:os';
import {afterEach, describe, expect, test} from 'vitest';
import type {RankProcess} from '../../src/core/types.js';
import {rankDetail, rankVariables} from '../../src/ranks/detail.js';
import {RankSampler} from '../../src/ranks/discover.js';
import {type ProcReader, type ProcStat, type ProcStatus, procReader} from '../../src/system/procfs.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';
import {GIB, rank} from '../ui/fixtures.js';

// The rank detail's one read of /proc: the whole argv, the cwd, the launch variables (only those), each
// worker's RSS; nothing for a rank whose pid is gone or is another process now.

const stat = (pid: number, startTime: number): ProcStat => ({
	pid,
	comm: 'python3',
	state: 'S',
	ppid: 1,
	pgrp: pid,
	session: pid,
	utime: 0,
	stime: 0,
	numThreads: 1,
	startTime,
	rssPages: 0,
	exitCode: null,
});

const status = (vmRssBytes: number | null): ProcStatus => ({
	name: 'python3',
	uid: {real: 1000, effective: 1000},
	sigPnd: 0n,
	shdPnd: 0n,
	sigBlk: 0n,
	sigIgn: 0n,
	sigCgt: 0n,
	vmRssBytes,
});

/** A /proc of one rank (pid 10000, start time 1000) and its workers; what is not given is unreadable. */
function fakeProc(over: Partial<ProcReader> = {}): ProcReader {
	return {
		listPids: () => [],
		owner: () => 1000,
		stat: pid => (pid === 10_000 ? stat(pid, 1000) : null),
		status: pid => (pid === 20_000 ? status(0.5 * GIB) : null),
		environ: () =>
			new Map([
				['PATH', '/usr/bin'],
				['HF_TOKEN', 'hf_secret'],
				['MASTER_ADDR', '10.0.0.7'],
				['CUDA_VISIBLE_DEVICES', '0,1'],
				['RANK', '0'],
			]),
		cmdline: () => ['/opt/conda/bin/python3', '-u', 'train.py', '--name', 'two words'],
		cwd: () => '/home/u/runs/a',
		openFiles: () => null,
		...over,
	};
}

const theRank = rank(0, {workers: [20_000, 20_001]});

describe('rankDetail', () => {
	test('the argv whole, the cwd, only the launch variables set (in their order), each worker', () => {
		const detail = rankDetail(theRank, fakeProc(), 5)!;
		expect(detail.argv).toEqual(['/opt/conda/bin/python3', '-u', 'train.py', '--name', 'two words']);
		expect(detail.argvExact).toBe(true);
		expect(detail.cwd).toBe('/home/u/runs/a');
		// In rankVariables()' order, not the environment's; PATH and the token are never shown.
		expect(detail.variables).toEqual([
			{name: 'RANK', value: '0'},
			{name: 'MASTER_ADDR', value: '10.0.0.7'},
			{name: 'CUDA_VISIBLE_DEVICES', value: '0,1'},
		]);
		expect(detail.workers).toEqual([
			{pid: 20_000, rssBytes: 0.5 * GIB, gone: false},
			{pid: 20_001, rssBytes: null, gone: true},
		]);
		expect(detail).toMatchObject({rank: 0, pid: 10_000, job: 'torchrun:9999', readAt: 5, rssBytes: 3.1 * GIB});
	});

	test.each([
		['has exited', {stat: () => null}],
		['is another process now (another start time)', {stat: (pid: number) => stat(pid, 1001)}],
	])('null when the pid %s', (_, over) => {
		expect(rankDetail(theRank, fakeProc(over), 5)).toBeNull();
	});

	test("unreadable parts: the scan's command line, no cwd, no variables (not an empty list)", () => {
		const detail = rankDetail(theRank, fakeProc({cmdline: () => [], cwd: () => null, environ: () => null}), 5)!;
		expect(detail.argv).toEqual(['/opt/conda/bin/python3', '-u', 'train.py', '--config', 'big.yaml']);
		expect(detail.argvExact).toBe(false);
		expect(detail.cwd).toBeNull();
		expect(detail.variables).toBeNull();
	});

	test('a rank with none of the variables set lists none', () => {
		const detail = rankDetail(theRank, fakeProc({environ: () => new Map([['HOME', '/home/u']])}), 5)!;
		expect(detail.variables).toEqual([]);
		expect(rankVariables()).toContain('SLURM_PROCID');
	});
});

const children: PythonChild[] = [];
const strays: number[] = [];
afterEach(() => {
	for (const child of children.splice(0)) child.kill();
	for (const pid of strays.splice(0)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
});

// The worker sleeps like its parent; its pid is printed before "ready".
const FORK_WORKER = [
	'worker = os.fork()',
	'if worker == 0:',
	'    while True: signal.pause()',
	'os.write(1, ("worker %d\\n" % worker).encode())',
].join('\n');

test('a real rank and its forked worker, read through /proc', async () => {
	const tag = `tt-detail-${process.pid}-${Date.now()}`;
	const child = await startPython(FORK_WORKER, {RANK: '3', WORLD_SIZE: '4', MASTER_ADDR: '127.0.0.1'}, tag);
	children.push(child);
	const worker = Number(/^worker (\d+)$/.exec(child.lines[0] ?? '')?.[1]);
	strays.push(worker);
	const proc = procReader();
	const sampler = new RankSampler({proc, selector: {kind: 'match', pattern: new RegExp(tag)}, host: hostname()});
	// The scan that finds it, as the TUI's snapshot has it: the forked worker carries the same RANK.
	const {ranks} = await sampler.sample();
	expect(ranks.map(r => [r.pid, r.workers])).toEqual([[child.pid, [worker]]]);
	const real = ranks[0] as RankProcess;

	const detail = rankDetail(real, proc, Date.now())!;
	expect(detail.rank).toBe(3);
	expect(detail.argvExact).toBe(true);
	// argv[0] as exec'd: a pyenv shim makes it the interpreter's full path.
	expect(detail.argv.slice(0, 2)).toEqual([expect.stringMatching(/python3$/), '-c']);
	expect(detail.argv.at(-1)).toBe(tag);
	// The script is one argument, newlines and all: nothing split it on blanks.
	expect(detail.argv[2]).toContain('worker = os.fork()\nif worker == 0:');
	expect(detail.cwd).toBe(realpathSync(process.cwd()));
	expect(detail.variables).toEqual([
		{name: 'RANK', value: '3'},
		{name: 'WORLD_SIZE', value: '4'},
		{name: 'MASTER_ADDR', value: '127.0.0.1'},
	]);
	expect(detail.workers).toHaveLength(1);
	expect(detail.workers[0]).toMatchObject({pid: worker, gone: false});
	expect(detail.workers[0]!.rssBytes).toBeGreaterThan(1024 * 1024);

	// Once it has exited (and been reaped: `exited` resolves after that), its pid reads as gone.
	child.kill();
	await child.exited;
	expect(rankDetail(real, proc, Date.now())).toBeNull();
}, 30_000);
