import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import type {DemoJob} from '../../src/demo/job.js';
import {allGotSigterm, endJob} from '../helpers/demo-signals.js';
import {runCli} from '../helpers/run-cli.js';
import {checkpointKinds as kinds, startSmallJob} from '../helpers/small-demo-job.js';

// Two real demo jobs of the same user at once, in two run dirs: a signal reaches the ranks of one job only,
// picked by its RUN_DIR or --job, and nothing at all is sent when nothing picks one.

let dirA: string;
let dirB: string;
let jobs: DemoJob[] = [];
beforeEach(async () => {
	dirA = await mkdtemp(path.join(tmpdir(), 'traintop-job-a-'));
	dirB = await mkdtemp(path.join(tmpdir(), 'traintop-job-b-'));
});
afterEach(async () => {
	await Promise.all(jobs.map(job => job.stop()));
	jobs = [];
	await Promise.all([dirA, dirB].map(dir => rm(dir, {recursive: true, force: true})));
});

async function start(runDir: string, masterPort: number): Promise<DemoJob> {
	const job = await startSmallJob(runDir, masterPort, 1);
	jobs.push(job);
	return job;
}

const NO_GPU = ['--nvidia-smi', '/nonexistent'];

describe('two jobs at once', () => {
	test('signal save RUN_DIR_A: a manual checkpoint in A, and job B gets nothing', async () => {
		const [a, b] = await Promise.all([start(dirA, 29_601), start(dirB, 29_602)]);
		const {code, stderr, stdout} = await runCli(['signal', 'save', dirA, '--yes', ...NO_GPU]);
		expect(code).toBe(0);
		expect(stderr).toContain(
			`SIGUSR1 (save) to 2 of 2 ranks of job launcher.py:${a.launcherPid} (command line names ${dirA})`,
		);
		expect(stdout.trim().split('\n')).toHaveLength(2);
		await a.waitForLine(/rank 0 step \d+ saved checkpoint_step_\d+_\d+_\d+ \(manual\)/, 10_000);
		expect(await kinds(dirA)).toEqual(['manual']);
		// B answers a later SIGTERM in order: a SIGUSR1 sent to it before would have shown first.
		expect(await endJob(b, 2)).toEqual(allGotSigterm(2));
		expect(b.output()).not.toMatch(/SIGUSR1/);
		expect(await kinds(dirB)).not.toContain('manual');
	});

	test('no RUN_DIR, --job or --pid: exit 2, both jobs listed with how to pick, nothing sent to either', async () => {
		const [a, b] = await Promise.all([start(dirA, 29_611), start(dirB, 29_612)]);
		const {code, stderr, stdout} = await runCli(['signal', 'save', '--yes', ...NO_GPU]);
		expect(code).toBe(2);
		expect(stdout).toBe('');
		expect(stderr).toMatch(/signal: \d+ jobs found and nothing picks one; nothing sent\. Jobs found:/);
		expect(stderr).toContain(`launcher.py:${a.launcherPid}  2 ranks (world 2)`);
		expect(stderr).toContain(`launcher.py:${b.launcherPid}  2 ranks (world 2)`);
		expect(stderr).toContain('Pick one: traintop signal ACTION RUN_DIR');
		expect(await Promise.all([endJob(a, 2), endJob(b, 2)])).toEqual([allGotSigterm(2), allGotSigterm(2)]);
		expect(a.output() + b.output()).not.toMatch(/SIGUSR1/);
	});

	test('--job picks B by its id; ranks --json lists both jobs, each rank with its job', async () => {
		const [a, b] = await Promise.all([start(dirA, 29_621), start(dirB, 29_622)]);
		const listed = await runCli(['ranks', '--json', ...NO_GPU]);
		const out = JSON.parse(listed.stdout) as {
			jobs: {id: string; identity: string; ranks: number[]; launcher: {pid: number} | null; world_size: number}[];
			ranks: {pid: number; job: string}[];
		};
		const jobB = out.jobs.find(job => job.launcher?.pid === b.launcherPid);
		const jobA = out.jobs.find(job => job.launcher?.pid === a.launcherPid);
		expect(jobA).toMatchObject({id: `launcher.py:${a.launcherPid}`, identity: 'elastic', world_size: 2});
		expect(jobB?.ranks.sort()).toEqual([...(await b.ranksReady()).values()].sort());
		for (const pid of jobB?.ranks ?? []) expect(out.ranks.find(r => r.pid === pid)?.job).toBe(jobB?.id);

		const sent = await runCli(['signal', 'save', '--job', jobB!.id, '--yes', ...NO_GPU]);
		expect(sent.code).toBe(0);
		await b.waitForLine(/rank 0 step \d+ saved checkpoint_step_\d+_\d+_\d+ \(manual\)/, 10_000);
		expect(await endJob(a, 2)).toEqual(allGotSigterm(2));
		expect(a.output()).not.toMatch(/SIGUSR1/);
	});
});
