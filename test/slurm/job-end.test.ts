import {writeFileSync} from 'node:fs';
import {constants} from 'node:os';
import path from 'node:path';
import {describe, expect, it, type TestContext} from 'vitest';
import {type CliRun, runCli, startCli} from '../helpers/run-cli.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {jobWithStepRunning, readEverySecond, slurmForThisFile} from '../helpers/slurm-suite.js';

// How a SLURM job ended, against a real one-node SLURM: its task's exit is slurmstepd's to reap, so /proc seldom
// shows it, but the controller knows it (ExitCode=99:0, JobState=TIMEOUT) and traintop says it; and `ranks --json
// --slurm-job J` carries the job's time limit and time left as headless does.
// slurmctld checks time limits every 30 s from its start (PERIODIC_TIMEOUT, not configurable), so a 1-minute job ends
// at the first check a minute after it started: 90 s after the controller started at the soonest, whatever the test
// does. The three jobs run side by side (--oversubscribe, one mostly idle task each) so that the other two fit in that
// wait however slow the machine; the traintops read the job every second (readEverySecond), not every 15 s.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM job end tests: ${unavailable}`);

/** A one-task job under srun whose task is a Python rank that runs `python` (then the batch script exits with it). */
const job = (python: string, limitMinutes: number): string =>
	[
		'#!/bin/bash',
		`#SBATCH --time=${limitMinutes}`,
		'#SBATCH --oversubscribe',
		`srun python3 -c '${python}'`,
		'exit $?',
		'',
	].join('\n');

type Event = {
	event: string;
	level: string;
	job: string | null;
	text: string;
	exit?: {code: number | null; signal: string | null} | null;
};

const events = (stdout: string): Event[] =>
	stdout
		.split('\n')
		.filter(line => line.startsWith('{"event":') && !line.includes('"event":"slurm"'))
		.map(line => JSON.parse(line) as Event);

describe.skipIf(unavailable !== null)('a SLURM job ends: the controller says how', () => {
	const cluster = slurmForThisFile();

	/** The job submitted, once its step runs; cancelled when the test ends (the tests run at once: its own only). */
	async function started({onTestFinished}: TestContext, script: string): Promise<number> {
		const id = await jobWithStepRunning(cluster, script, 'end-%j.out');
		onTestFinished(() => void cluster.run('scancel', [String(id)]));
		return id;
	}

	/** A headless traintop on the job, killed when the test ends. */
	function watch({onTestFinished}: TestContext, id: number): CliRun {
		const args = ['--headless', '--json', '--slurm-job', String(id), '--no-log', '--nvidia-smi', '/nonexistent'];
		const run = startCli(args, {env: readEverySecond(cluster)});
		onTestFinished(() => void run.child.kill('SIGKILL'));
		return run;
	}

	it.concurrent('a task that exits 99: FAILED, exit 99 — saved for requeue, never "exit status unknown"', async context => {
		// The rank exits once traintop has seen it (the test then makes the file it waits for), however slow that is.
		const go = path.join(cluster.dir, `exit-now-${process.pid}-${Date.now()}`);
		const python = [
			'import os, sys, time',
			`while not os.path.exists("${go}"):`,
			'    time.sleep(0.1)',
			'sys.exit(99)',
		];
		const id = await started(context, job(python.join('\n'), 5));
		const run = watch(context, id);
		await run.waitFor(o => /ranks: rank 0 \(pid \d+\) found/.test(o.stderr), 60_000);
		writeFileSync(go, '');
		await run.waitFor(o => events(o.stdout).some(e => e.event === 'job-ended'), 60_000);
		expect(cluster.job(id)).toMatchObject({JobState: 'FAILED', ExitCode: '99:0'});
		const ended = events(run.stdout()).filter(e => e.event === 'job-ended');
		expect(ended).toEqual([
			expect.objectContaining({
				job: `slurm:${id}.0`,
				level: 'warn',
				text: `job slurm:${id}.0 ended; SLURM job ${id} FAILED (NonZeroExitCode), exit 99 — saved for requeue`,
				exit: {code: 99, signal: null},
			}),
		]);
		expect(run.stderr()).not.toContain('exit status unknown');
		// The job's own line says it too, once the controller's answer shows it ended.
		await run.waitFor(
			o => new RegExp(`SLURM job ${id} .*· FAILED \\(NonZeroExitCode\\), exit 99`).test(o.stderr),
			30_000,
		);
	}, 120_000);

	it.concurrent('ranks --json --slurm-job J: the time limit and time left, as headless gives them', async context => {
		const id = await started(context, job('import time; time.sleep(600)', 1));
		const run = watch(context, id);
		await run.waitFor(o => /ranks: rank 0 \(pid \d+\) found/.test(o.stderr), 30_000);

		const ranks = await runCli(['ranks', '--json', '--slurm-job', String(id)], {env: cluster.env, timeoutMs: 60_000});
		expect(ranks.code).toBe(0);
		const listed = JSON.parse(ranks.stdout) as {jobs: {id: string; slurm: Record<string, unknown> | null}[]};
		const own = cluster.job(id);
		const [minutes = 0, seconds = 0] = (own.RunTime ?? '').split(':').slice(1).map(Number);
		expect(listed.jobs).toEqual([
			expect.objectContaining({
				id: `slurm:${id}.0`,
				slurm: expect.objectContaining({job_id: String(id), time_limit_s: 60}),
			}),
		]);
		const left = listed.jobs[0]?.slurm?.time_left_s as number;
		// Read a moment apart from scontrol's RunTime: within a few seconds of the limit minus it.
		expect(Math.abs(left - (60 - (minutes * 60 + seconds)))).toBeLessThanOrEqual(5);
	}, 120_000);

	it.concurrent('at the time limit: TIMEOUT with its exit, never "exit status unknown"', async context => {
		// A one-minute limit (SLURM's least); slurmctld enforces it on a timer, so the end comes 60-100 s in.
		const id = await started(context, job('import time; time.sleep(600)', 1));
		const run = watch(context, id);
		await run.waitFor(o => /ranks: rank 0 \(pid \d+\) found/.test(o.stderr), 30_000);
		await run.waitFor(o => events(o.stdout).some(e => e.event === 'job-ended'), 150_000);
		expect(cluster.job(id)).toMatchObject({JobState: 'TIMEOUT', Reason: 'TimeLimit'});
		// One event: SLURM may say TIMEOUT before the ranks are gone; their end carries it.
		const all = events(run.stdout()).filter(e => e.event === 'job-ended');
		expect(all).toHaveLength(1);
		const ended = all[0];
		expect(ended).toMatchObject({
			job: `slurm:${id}.0`,
			level: 'critical',
			text: expect.stringMatching(
				new RegExp(
					`^job slurm:${id}\\.0 ended; SLURM job ${id} TIMEOUT \\(TimeLimit\\): its 1 m 00 s time limit reached, `,
				),
			),
		});
		// SLURM's ExitCode, whichever it is this time: 143:0 (the shell's 128 + TERM) or 0:15 (the shell killed by TERM).
		const [code = 0, signal = 0] = (cluster.job(id).ExitCode ?? '').split(':').map(Number);
		const killer = Object.entries(constants.signals).find(([, n]) => n === signal)?.[0];
		expect(ended?.text).toContain(signal > 0 ? `killed by ${killer}` : `exit ${code}`);
		expect(ended?.exit).toEqual(signal > 0 ? {code: null, signal: killer} : {code, signal: null});
		expect(run.stderr()).not.toContain('exit status unknown');
	}, 240_000);
});
