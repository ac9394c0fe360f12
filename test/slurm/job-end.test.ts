import {constants} from 'node:os';
import {describe, expect, it} from 'vitest';
import {ownedByTest} from '../helpers/owned-by-test.js';
import {type CliRun, runCli, startCli} from '../helpers/run-cli.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {cancelJobs, jobWithStepRunning, slurmForThisFile} from '../helpers/slurm-suite.js';

// How a SLURM job ended, against a real one-node SLURM: its task's exit is slurmstepd's to reap, so /proc seldom
// shows it, but the controller knows it (ExitCode=99:0, JobState=TIMEOUT) and traintop says it; and `ranks --json
// --slurm-job J` carries the job's time limit and time left as headless does.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM job end tests: ${unavailable}`);

/** A one-task job under srun whose task is a Python rank that runs `python` (then the batch script exits with it). */
const job = (python: string, limitMinutes: number): string =>
	['#!/bin/bash', `#SBATCH --time=${limitMinutes}`, `srun python3 -c '${python}'`, 'exit $?', ''].join('\n');

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
	const owned = ownedByTest(() => cancelJobs(cluster));

	const started = (script: string): Promise<number> => jobWithStepRunning(cluster, script, 'end-%j.out');

	function watch(id: number): CliRun {
		const args = ['--headless', '--json', '--slurm-job', String(id), '--no-log', '--nvidia-smi', '/nonexistent'];
		return startCli(args, {env: cluster.env});
	}

	it('a task that exits 99: FAILED, exit 99 — saved for requeue, never "exit status unknown"', async () => {
		// Long enough for traintop to see the rank before it goes.
		const id = await started(job('import time, sys; time.sleep(6); sys.exit(99)', 5));
		const run = owned.run(watch(id));
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

	it('ranks --json --slurm-job J: the time limit and time left, as headless gives them', async () => {
		const id = await started(job('import time; time.sleep(600)', 1));
		const run = owned.run(watch(id));
		await run.waitFor(o => /ranks: rank 0 \(pid \d+\) found/.test(o.stderr), 30_000);

		const ranks = await runCli(['ranks', '--json', '--slurm-job', String(id)], {env: cluster.env});
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

	it('at the time limit: TIMEOUT with its exit, never "exit status unknown"', async () => {
		// A one-minute limit (SLURM's least); slurmctld enforces it on a timer, so the end comes 60-100 s in.
		const id = await started(job('import time; time.sleep(600)', 1));
		const run = owned.run(watch(id));
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
