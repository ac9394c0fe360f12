import {mkdirSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {requireBuild} from '../helpers/dist.js';
import {
	killRecorders,
	RECORDER,
	type Recorder,
	receivedBefore,
	recorderAt,
	startOutsider,
} from '../helpers/signal-recorder.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {runningTwoTaskJob, traintopOn} from '../helpers/slurm-demo-job.js';
import {slurmForThisFile} from '../helpers/slurm-suite.js';
import {until} from '../helpers/until.js';

// A process started by hand with a real step's SLURM_JOB_ID, SLURM_STEP_ID and SLURM_PROCID is not one of its tasks:
// on the real one-node test SLURM, the step's two tasks (under its slurmstepd) get the save from `--job slurm:J.0`
// and from `--slurm-job J`; the forged one gets nothing and is listed apart.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the forged SLURM step test: ${unavailable}`);

const NO_GPU = ['--nvidia-smi', '/nonexistent'];

describe.skipIf(unavailable !== null)('SLURM variables set by hand on the real test SLURM', () => {
	beforeAll(requireBuild);
	const cluster = slurmForThisFile();
	const recorders: Recorder[] = [];
	// After hooks run last first: the recorders are killed before the cluster stops.
	afterAll(() => killRecorders(recorders));

	const traintop = (args: readonly string[]) => traintopOn(cluster, [...args, ...NO_GPU]);

	it("signals the step's tasks, never the forged one, by --job slurm:J.0 and by --slurm-job J", async () => {
		const dir = path.join(cluster.dir, 'forged');
		mkdirSync(dir);
		const script = [
			'#!/bin/bash',
			`srun bash -c 'exec python3 ${RECORDER} ${dir}/task-$SLURM_PROCID' &`,
			'wait',
			'',
		].join('\n');
		const id = await runningTwoTaskJob(cluster, script, dir);
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
