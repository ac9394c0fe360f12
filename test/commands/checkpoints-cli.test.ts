import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {runCli, startCli, type CliRun} from '../helpers/run-cli.js';

// `traintop checkpoints` and `traintop signal save --wait` as real child processes on the demo job.

let dir = '';
let job: DemoJob | null = null;
let run: CliRun | null = null;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-ckpt-cli-'));
});
afterEach(async () => {
	run?.child.kill('SIGKILL');
	run = null;
	await job?.stop();
	job = null;
	await rm(dir, {recursive: true, force: true});
});

type IndexJson = {
	run_dir: string;
	layouts: string[];
	checkpoints: {name: string; step: number; status: string; kind: string; retention: string}[];
	retention: {keep: number | null; source: string; count: number; to_prune: string[]};
	disk: {free_bytes: number | null; total_bytes: number | null};
	last_save: {age_s: number} | null;
	warnings: string[];
};

describe('traintop checkpoints', () => {
	test('a nonexistent RUN_DIR is a usage error naming it; an empty one has no checkpoints yet', async () => {
		const missing = await runCli(['checkpoints', path.join(dir, 'nope')]);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain(`RUN_DIR ${path.join(dir, 'nope')}: no such directory`);
		const empty = await runCli(['checkpoints', dir]);
		expect(empty.code).toBe(0);
		expect(empty.stdout.trim()).toBe(`no checkpoints yet in ${dir} (searched 1 directory to depth 4)`);
	});

	test("the demo job's saves: the timeline, keep-N from its metadata, and what the next save prunes", async () => {
		job = await startDemoJob({
			runDir: dir,
			ranks: 2,
			workers: 1,
			stepSeconds: 0.03,
			saveEvery: 4,
			maxCheckpoints: 2,
			shutdownTimeoutS: 3,
		});
		for (let i = 0; i < 3; i++) await job.waitForLine(new RegExp(`saved checkpoint_step_${(i + 1) * 4}_`), 10_000);
		await job.stop();
		job = null;
		const {code, stdout} = await runCli(['checkpoints', dir, '--json']);
		expect(code).toBe(0);
		const index = JSON.parse(stdout) as IndexJson;
		expect(index.layouts).toContain('seed');
		const complete = index.checkpoints.filter(c => c.status === 'complete');
		// Retention (2) already removed older ones; the SIGTERM of stop() added an emergency checkpoint.
		expect(complete.length).toBeLessThanOrEqual(2);
		expect(index.retention).toMatchObject({keep: 2, source: 'metadata', count: complete.length});
		expect(index.retention.to_prune).toHaveLength(complete.length + 1 - 2);
		expect(index.checkpoints.filter(c => c.retention === 'prune-next').map(c => c.name)).toEqual(
			index.retention.to_prune.map(p => path.basename(p)),
		);
		expect(index.disk.free_bytes).toBeGreaterThan(0);
		expect(index.last_save?.age_s).toBeLessThan(60);

		// The job rotates by its own max_checkpoints: --keep does not change the plan, and a warning says why.
		const flag = JSON.parse((await runCli(['checkpoints', dir, '--json', '--keep', '1'])).stdout) as IndexJson;
		expect(flag.retention).toMatchObject({keep: 2, source: 'metadata'});
		expect(flag.retention.to_prune).toEqual(index.retention.to_prune);
		expect(flag.warnings).toContain(
			'--keep 1 not used for the seed checkpointing checkpoints in checkpoints: checkpoint_metadata.json max_checkpoints says 2, and the framework rotates by that',
		);

		const text = await runCli(['checkpoints', dir]);
		expect(text.stdout).toMatch(/^TIME +AGE +STEP +EPOCH +SIZE +KIND +STATUS +RETENTION +NAME$/m);
		expect(text.stdout).toContain(
			'retention: seed checkpointing in checkpoints/ · seed max_checkpoints 2 (checkpoint_metadata.json); ',
		);
	});
});

describe('traintop signal save --wait', () => {
	test('reports the checkpoint the save produced, with its name and the time it took', async () => {
		job = await startDemoJob({runDir: dir, ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
		await job.ranksReady();
		const {code, stdout, stderr} = await runCli([
			'signal',
			'save',
			'--wait',
			'--yes',
			'--pid',
			String(job.launcherPid),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(stderr).toContain('waiting up to 60 s for a new checkpoint in');
		expect(stdout).toMatch(/saved checkpoint_step_\d+_\d{8}_\d{6} \(step \d+, manual\) in \d+\.\d s/);
		expect(code).toBe(0);
	});

	test('--json carries the checkpoint; RUN_DIR may be given', async () => {
		job = await startDemoJob({runDir: dir, ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
		await job.ranksReady();
		const {code, stdout} = await runCli([
			'signal',
			'save',
			dir,
			'--wait',
			'--yes',
			'--json',
			'--pid',
			String(job.launcherPid),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(code).toBe(0);
		const out = JSON.parse(stdout) as {
			signal: string;
			checkpoint: {saved: boolean; kind: string; step: number; seconds: number};
		};
		expect(out.signal).toBe('SIGUSR1');
		expect(out.checkpoint).toMatchObject({saved: true, kind: 'manual'});
		expect(out.checkpoint.seconds).toBeLessThan(10);
	});

	test('a signal that makes no checkpoint: exit 3 after the timeout, saying so', async () => {
		job = await startDemoJob({runDir: dir, ranks: 1, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
		await job.ranksReady();
		const {code, stdout} = await runCli([
			'signal',
			'SIGCONT',
			'--wait',
			'--timeout',
			'2',
			'--yes',
			'--pid',
			String(job.launcherPid),
			'--nvidia-smi',
			'/nonexistent',
		]);
		expect(stdout).toContain(`no new checkpoint in ${dir} within 2 s`);
		expect(code).toBe(3);
	});
});

test('headless with a RUN_DIR reports a new checkpoint', async () => {
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
	const ranks = await job.ranksReady();
	run = startCli([
		'--headless',
		dir,
		'--no-log',
		'--interval',
		'0.2',
		'--pid',
		String(job.launcherPid),
		'--nvidia-smi',
		'/nonexistent',
	]);
	await run.waitFor(o => o.stderr.includes('found; launcher pid'));
	process.kill(ranks.get(0)!, 'SIGUSR1');
	await run.waitFor(
		o => /saved checkpoint_step_\d+_\d+_\d+ \(manual, step \d+, [\d.]+ (?:B|KiB|MiB|GiB)\)/.test(o.stderr),
		10_000,
	);
	run.child.kill('SIGINT');
	expect(await run.exited).toBe(0);
});
