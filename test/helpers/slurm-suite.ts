import {spawnSync} from 'node:child_process';
import {afterAll, beforeAll} from 'vitest';
import {type SlurmCluster, startSlurm} from './slurm-cluster.js';
import {until} from './until.js';

// What every SLURM test file does around its tests, in one place: its own one-node SLURM started before them and
// stopped after, its jobs cancelled between them, a job submitted and waited for until its first step runs.

/**
 * This test file's own SLURM: call it inside the describe; it is started before the tests (generous timeouts, for
 * a loaded machine) and stopped after. The cluster it returns stands for the started one, so use it only inside
 * tests and hooks.
 */
export function slurmForThisFile(): SlurmCluster {
	let started: SlurmCluster | undefined;
	beforeAll(async () => {
		started = await startSlurm();
	}, 90_000);
	afterAll(async () => {
		await started?.stop();
	}, 30_000);
	const cluster = (): SlurmCluster => {
		if (started === undefined) throw new Error('the SLURM of this test file is not started (used outside a test?)');
		return started;
	};
	return {
		get dir() {
			return cluster().dir;
		},
		get node() {
			return cluster().node;
		},
		get env() {
			return cluster().env;
		},
		run: (command, args) => cluster().run(command, args),
		sbatch: (script, args) => cluster().sbatch(script, args),
		job: id => cluster().job(id),
		stop: () => cluster().stop(),
	};
}

/**
 * The cluster's environment for a traintop whose SLURM reader should read the job every second rather than every 15 s
 * (src/slurm/job-reader.ts, the tests' interval): a requeue or an end shows at once instead of after a wait on the
 * reader's clock.
 */
export function readEverySecond(cluster: SlurmCluster): NodeJS.ProcessEnv {
	return {...cluster.env, ...READ_EVERY_SECOND};
}

/** The variable that sets it, for a command line (the TUI in tmux). */
export const READ_EVERY_SECOND = {TRAINTOP_TEST_SLURM_POLL_MS: '1000'} as const;

/** Cancels every job of this cluster (SLURM_CONF: this cluster's only; a controller already stopped has none). */
export function cancelJobs(cluster: SlurmCluster): void {
	spawnSync('scancel', ['--user=root'], {env: cluster.env});
}

/** cancelJobs, then waits for the queue to empty: the cancelled ranks may still be writing for a moment. */
export async function cancelJobsAndWait(cluster: SlurmCluster): Promise<void> {
	cancelJobs(cluster);
	await until(
		() => cluster.run('squeue', ['-h', '-o', '%i']).trim(),
		list => list === '',
		'the job ended',
		30_000,
	);
}

/** Submits `script` (its output to `output` under the cluster's dir, %j its id); the id, once step 0 runs. */
export async function jobWithStepRunning(cluster: SlurmCluster, script: string, output: string): Promise<number> {
	const id = cluster.sbatch(script, [`--output=${cluster.dir}/${output}`]);
	const steps = () => cluster.run('squeue', ['-h', '-s', '-j', String(id), '-o', '%i']);
	await until(steps, list => list.includes(`${id}.0`), `job ${id}'s step running`, 60_000);
	return id;
}
