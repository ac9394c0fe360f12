import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {startDemoJob, type DemoJob} from '../../src/demo/job.js';
import {startCli, type CliRun} from '../helpers/run-cli.js';

let dir = '';
let job: DemoJob | null = null;
let run: CliRun | null = null;
afterEach(async () => {
	run?.child.kill('SIGKILL');
	await job?.stop();
	await rm(dir, {recursive: true, force: true});
});

test('headless reports the ranks it found, and a rank that dies', async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-headless-ranks-'));
	job = await startDemoJob({runDir: dir, ranks: 2, workers: 1, stepSeconds: 0.05, saveEvery: 0, shutdownTimeoutS: 3});
	const ranks = await job.ranksReady();
	run = startCli([
		'--headless',
		'--no-log',
		'--pid',
		String(job.launcherPid),
		'--interval',
		'0.2',
		'--ranks-interval',
		'0.5',
		'--nvidia-smi',
		'/nonexistent',
	]);
	await run.waitFor(o => o.stderr.includes('found; launcher pid'));
	expect(run.stderr()).toMatch(
		new RegExp(
			`ranks: rank 0 \\(pid ${ranks.get(0)}\\), rank 1 \\(pid ${ranks.get(1)}\\) found; launcher pid ${job.launcherPid}`,
		),
	);
	process.kill(ranks.get(1)!, 'SIGKILL');
	// Its exit event: how it died when its zombie was seen, else "gone" (the launcher reaps within 50 ms).
	const exited = `rank 1 (pid ${ranks.get(1)}) of launcher.py:${job.launcherPid} `;
	await run.waitFor(o => o.stderr.includes(exited));
	expect(run.stderr()).toMatch(new RegExp(`${exited.replace(/[().]/g, '\\$&')}(was killed by SIGKILL|is gone)`));
	run.child.kill('SIGINT');
	expect(await run.exited).toBe(0);
});
