import {describe, expect, it} from 'vitest';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {slurmForThisFile} from '../helpers/slurm-suite.js';
import {until} from '../helpers/until.js';

// The test SLURM itself: a batch job with two tasks under srun runs, and scontrol reports it as SLURM sees it.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM tests: ${unavailable}`);

describe.skipIf(unavailable !== null)('the one-node test SLURM', () => {
	const cluster = slurmForThisFile();

	it('runs a batch job of two srun tasks, RUNNING with both steps, then COMPLETED', async () => {
		const id = cluster.sbatch(
			'#!/bin/bash\n#SBATCH --ntasks=2\n#SBATCH --time=2\nsrun bash -c "sleep 8; echo task \\$SLURM_PROCID"\n',
			[`--output=${cluster.dir}/out-%j.txt`],
		);
		const running = await until(
			() => cluster.job(id),
			job => job.JobState === 'RUNNING',
			`job ${id} running`,
			60_000,
		);
		expect(running).toMatchObject({NumTasks: '2', NodeList: cluster.node, TimeLimit: '00:02:00', Restarts: '0'});
		// The batch shell starts srun a moment after the job is RUNNING: wait for its step.
		const steps = () =>
			cluster
				.run('squeue', ['-h', '-s', '-j', String(id), '-o', '%i'])
				.split('\n')
				.filter(Boolean);
		await until(steps, list => list.includes(`${id}.0`), `step ${id}.0`, 60_000);
		await until(
			() => cluster.job(id).JobState,
			state => state === 'COMPLETED',
			`job ${id} completed`,
			60_000,
		);
	}, 200_000);
});
