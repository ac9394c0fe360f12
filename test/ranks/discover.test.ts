import {randomUUID} from 'node:crypto';
import {hostname} from 'node:os';
import {afterEach, describe, expect, test} from 'vitest';
import {gpuMemoryOf, RankSampler} from '../../src/ranks/discover.js';
import {procReader} from '../../src/system/procfs.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';
import {until} from '../helpers/until.js';

// Real python3 ranks; each test finds exactly its own through a unique tag on the command line.

const children: PythonChild[] = [];
afterEach(() => {
	for (const c of children.splice(0)) c.kill();
});

async function rank(rank: number, setup = '', extraEnv: Record<string, string> = {}, tag = '') {
	const child = await startPython(
		setup,
		{RANK: String(rank), LOCAL_RANK: String(rank), WORLD_SIZE: '2', ...extraEnv},
		tag,
	);
	children.push(child);
	return child;
}

/** A fork child that inherits the rank's environment, like a DataLoader worker. */
const WORKER = [
	'parent = os.getpid()',
	'pid = os.fork()',
	'if pid == 0:',
	'    while os.getppid() == parent: time.sleep(0.05)',
	'    os._exit(0)',
	'print("worker", pid, flush=True)',
].join('\n');

function sampler(tag: string, options: {stallAfterMs?: number; now?: () => number; rescanEveryMs?: number} = {}) {
	return new RankSampler({
		proc: procReader(),
		selector: {kind: 'match', pattern: new RegExp(tag)},
		host: hostname(),
		...options,
	});
}

describe('RankSampler on real processes', () => {
	test('finds each rank once, its workers, its environment and signal state', async () => {
		const tag = `tt-${randomUUID()}`;
		const r0 = await rank(
			0,
			`${WORKER}\non(signal.SIGUSR1, "USR1")`,
			{SLURM_JOB_ID: '777', SLURM_STEP_ID: '3', SLURM_PROCID: '0'},
			tag,
		);
		const r1 = await rank(1, WORKER, {}, tag);
		const set = await sampler(tag).sample();
		expect(set.ranks.map(r => [r.rank, r.pid])).toEqual([
			[0, r0.pid],
			[1, r1.pid],
		]);
		const [first, second] = set.ranks;
		expect(first?.workers).toEqual([Number(r0.lines[0]?.split(' ')[1])]);
		expect(second?.workers).toHaveLength(1);
		expect(first).toMatchObject({
			localRank: 0,
			worldSize: 2,
			ppid: process.pid,
			host: hostname(),
			state: 'S',
			cpuPercent: null,
		});
		expect(first?.cmd).toContain(tag);
		// SLURM_JOB_ID in its environment, but no step of job 777 above it (nor its cgroup): no task (job-proof.ts).
		expect(first?.task).toBeNull();
		expect(second?.task).toBeNull();
		expect(first?.signals.SIGUSR1?.disposition).toBe('handled');
		expect(second?.signals.SIGUSR1?.disposition).toBe('default');
		expect(first?.rssBytes).toBeGreaterThan(1_000_000);
		// Started within the last minute, by the boot-time arithmetic.
		expect(Math.abs((first?.startedAt ?? 0) - Date.now())).toBeLessThan(60_000);
		// The test process started them, and vitest is not a launcher we would offer.
		expect(set.launcher?.pid ?? null).not.toBe(process.pid);
	});

	test('CPU % from successive samples; a rank sleeping through the stall window is flagged, a busy one is not', async () => {
		const tag = `tt-${randomUUID()}`;
		const idle = await rank(0, '', {}, tag);
		const busy = await rank(
			1,
			'import threading\ndef spin():\n    while True: pass\nthreading.Thread(target=spin, daemon=True).start()',
			{},
			tag,
		);
		// The sampler reads the test's clock: the second sample is 1 s after the first by it, so CPU % is the ranks' real
		// CPU time over a known interval, whatever share of a CPU a loaded machine gives the busy rank, and 1 s is past
		// the 0.4 s stall window.
		let clock = Date.now();
		const s = sampler(tag, {stallAfterMs: 400, now: () => clock});
		const first = await s.sample();
		expect(first.ranks.every(r => r.cpuPercent === null && !r.stalled)).toBe(true);
		// Wait for work, not for time: the busy rank uses 0.5 s of CPU (50 ticks) after the first sample read its stat.
		const proc = procReader();
		const cpuTicks = () => {
			const stat = proc.stat(busy.pid);
			return stat ? stat.utime + stat.stime : -1;
		};
		const start = cpuTicks();
		await until(cpuTicks, ticks => ticks >= start + 50, 'the busy rank to use 0.5 s of CPU (50 ticks)');
		clock += 1000;
		const second = await s.sample();
		const byPid = new Map(second.ranks.map(r => [r.pid, r]));
		expect(byPid.get(busy.pid)?.cpuPercent).toBeGreaterThan(40);
		expect(byPid.get(idle.pid)?.cpuPercent).toBeLessThan(5);
		expect(byPid.get(idle.pid)?.stalled).toBe(true);
		expect(byPid.get(busy.pid)?.stalled).toBe(false);
	});

	test('a rank that exits disappears at the next sample; a new one appears', async () => {
		const tag = `tt-${randomUUID()}`;
		const r0 = await rank(0, '', {}, tag);
		const s = sampler(tag, {rescanEveryMs: 60_000});
		expect((await s.sample()).ranks.map(r => r.pid)).toEqual([r0.pid]);
		r0.kill('SIGKILL');
		await r0.exited;
		const r1 = await rank(1, '', {}, tag);
		// The known rank is gone, so the sampler rescans at once rather than in a minute.
		expect((await s.sample()).ranks.map(r => r.pid)).toEqual([r1.pid]);
	});
});

test('GPU memory of a rank sums its pid and its workers over GPUs; unknown is null', () => {
	const table = {
		processes: [
			{pid: 10, gpuUuid: 'GPU-a', usedBytes: 100},
			{pid: 10, gpuUuid: 'GPU-b', usedBytes: 50},
			{pid: 11, gpuUuid: 'GPU-a', usedBytes: 7},
			{pid: 12, gpuUuid: 'GPU-a', usedBytes: null},
		],
		sampledAt: 1,
		error: null,
	};
	expect(gpuMemoryOf([10, 11], table)).toBe(157);
	expect(gpuMemoryOf([99], table)).toBe(0);
	expect(gpuMemoryOf([12], table)).toBeNull();
	expect(gpuMemoryOf([10], {processes: [], sampledAt: null, error: null})).toBeNull();
	expect(gpuMemoryOf([10], null)).toBeNull();
});

test('where ranks were looked for, in words: a --pid that is not running says the job ended', async () => {
	const gone = await startPython('');
	gone.kill();
	await gone.exited;
	const set = await new RankSampler({
		proc: procReader(),
		selector: {kind: 'pid', pid: gone.pid},
		host: hostname(),
	}).sample();
	expect(set.ranks).toEqual([]);
	expect(set.search).toBe(`process ${gone.pid} is not running: the job it started has ended, or the pid is wrong`);
	const alive = await new RankSampler({
		proc: procReader(),
		selector: {kind: 'pid', pid: process.pid},
		host: hostname(),
	}).sample();
	expect(alive.search).toBe(`looking among process ${process.pid} and its descendants`);
});

test("RUN_DIR names the job its ranks use; a --pid that finds one job makes RUN_DIR that job's whatever they show", async () => {
	const tag = `tt-rundir-${randomUUID()}`;
	const child = await startPython('', {RANK: '0', WORLD_SIZE: '1'}, tag);
	children.push(child);
	const byPid = await new RankSampler({
		proc: procReader(),
		selector: {kind: 'pid', pid: child.pid},
		host: hostname(),
		runDir: '/nonexistent/run',
	}).sample();
	expect(byPid.runDirMatch).toEqual({jobs: [`pid:${child.pid}`], evidence: '--pid'});
	expect(byPid.jobs[0]?.runDir).toBe('/nonexistent/run');
	// Found by --match instead, with a run dir it works in (its cwd, the test's): the working directory names it.
	const byCwd = await new RankSampler({
		proc: procReader(),
		selector: {kind: 'match', pattern: new RegExp(tag)},
		host: hostname(),
		runDir: process.cwd(),
	}).sample();
	expect(byCwd.runDirMatch).toEqual({jobs: [`pid:${child.pid}`], evidence: 'working directory'});
});
