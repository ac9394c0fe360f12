import {execFile} from 'node:child_process';
import {mkdirSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {CLI, requireBuild} from '../helpers/dist.js';
import {
	killRecorders,
	RECORDER,
	type Recorder,
	receivedBefore,
	recorderAt,
	startOutsider,
} from '../helpers/signal-recorder.js';
import {type SlurmCluster, slurmUnavailable, startSlurm} from '../helpers/slurm-cluster.js';
import {until} from '../helpers/until.js';

// A process started by hand with a real step's SLURM_JOB_ID, SLURM_STEP_ID and SLURM_PROCID is not one of its tasks:
// on the real one-node test SLURM, the step's two tasks (under its slurmstepd) get the save from `--job slurm:J.0`
// and from `--slurm-job J`; the forged one gets nothing and is listed apart.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the forged SLURM step test: ${unavailable}`);

const NO_GPU = ['--nvidia-smi', '/nonexistent'];

interface Run {
	readonly code: number;
	readonly stdout: string;
	readonly stderr: string;
}

describe.skipIf(unavailable !== null)('SLURM variables set by hand on the real test SLURM', () => {
	let cluster: SlurmCluster;
	const recorders: Recorder[] = [];
	beforeAll(async () => {
		requireBuild();
		cluster = await startSlurm();
	}, 60_000);
	afterAll(async () => {
		killRecorders(recorders);
		await cluster?.stop();
	}, 30_000);

	function traintop(args: readonly string[]): Promise<Run> {
		return new Promise(resolve => {
			execFile(
				process.execPath,
				[CLI, ...args, ...NO_GPU],
				{env: cluster.env, timeout: 90_000, encoding: 'utf8'},
				(error, stdout, stderr) => {
					const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
					resolve({code, stdout, stderr});
				},
			);
		});
	}

	it("signals the step's tasks, never the forged one, by --job slurm:J.0 and by --slurm-job J", async () => {
		const dir = path.join(cluster.dir, 'forged');
		mkdirSync(dir);
		const script = [
			'#!/bin/bash',
			`srun bash -c 'exec python3 ${RECORDER} ${dir}/task-$SLURM_PROCID' &`,
			'wait',
			'',
		].join('\n');
		const id = cluster.sbatch(script, ['--ntasks=2', '--time=5', '--oversubscribe', `--output=${dir}/batch.out`]);
		await until(
			() => cluster.job(id).JobState,
			state => state === 'RUNNING',
			`job ${id} running`,
			30_000,
		);
		const tasks = await Promise.all([0, 1].map(n => recorderAt(path.join(dir, `task-${n}`))));
		recorders.push(...tasks);
		const victim = await startOutsider(path.join(dir, 'victim'), {
			SLURM_JOB_ID: String(id),
			SLURM_STEP_ID: '0',
			SLURM_PROCID: '1',
		});
		recorders.push(victim);
		const step = `slurm:${id}.0`;

		const byId = await traintop(['signal', 'save', '--job', step, '--yes']);
		expect(byId.code, byId.stderr).toBe(0);
		for (const task of tasks) await until(task.received, got => got.length > 0, `the save to pid ${task.pid}`, 30_000);
		expect(tasks.map(t => t.received())).toEqual([['SIGUSR1'], ['SIGUSR1']]);
		expect(await receivedBefore(victim)).toEqual(['SIGUSR2']);
		expect(byId.stderr).toContain(`SIGUSR1 (save) to 2 of 2 ranks of job ${step}`);

		const bySlurm = await traintop(['signal', 'save', '--slurm-job', String(id), '--yes']);
		expect(bySlurm.code, bySlurm.stderr).toBe(0);
		for (const task of tasks) await until(task.received, got => got.length > 1, `a second save to ${task.pid}`, 30_000);
		expect(tasks.map(t => t.received())).toEqual([
			['SIGUSR1', 'SIGUSR1'],
			['SIGUSR1', 'SIGUSR1'],
		]);
		expect(await receivedBefore(victim, 'SIGTERM')).toEqual(['SIGUSR2', 'SIGTERM']);

		const listed = await traintop(['ranks', '--json', '--job', step]);
		expect(listed.code, listed.stderr).toBe(0);
		const [job] = (
			JSON.parse(listed.stdout) as {
				jobs: {id: string; ranks: number[]; proven_by: string; unproven: {pid: number; membership: unknown}[]}[];
			}
		).jobs;
		expect(job?.proven_by).toBe('slurm-step');
		expect(job?.ranks.sort((a, b) => a - b)).toEqual(tasks.map(t => t.pid).sort((a, b) => a - b));
		expect(job?.unproven.map(u => [u.pid, u.membership])).toEqual([
			[victim.pid, {proven: false, reason: 'not-in-step'}],
		]);
		const text = await traintop(['ranks', '--job', step]);
		expect(text.stdout).toContain(
			`pid ${victim.pid} (rank 1) claims job ${step}, not proven: not under the step's slurmstepd`,
		);
	}, 180_000);
});
