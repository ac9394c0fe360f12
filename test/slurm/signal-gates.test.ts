import {type ChildProcess, spawn} from 'node:child_process';
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {afterEach, beforeAll, describe, expect, it} from 'vitest';
import {slurmPlan} from '../../src/slurm/signal-plan.js';
import {scanRanks} from '../../src/commands/ranks.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {procReader} from '../../src/system/procfs.js';
import {CLI, requireBuild} from '../helpers/dist.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {slurmForThisFile} from '../helpers/slurm-suite.js';
import {type DemoJob, startDemoJob, traintopOn} from '../helpers/slurm-demo-job.js';
import {until} from '../helpers/until.js';

// Every route is gated on the ranks' dispositions: with a traintop step beside the job's own (`srun --jobid J
// --overlap traintop …`, the SLURM guide's recipe), only 2 of the job's 3 tasks are ranks, and the send used to go by
// scancel to every step unguarded: SIGUSR2 and SIGHUP, which the demo ranks do not handle, ended the job. On the
// real one-node test SLURM: those are refused (exit 3) and the job keeps RUNNING; the save, which the ranks handle,
// still goes through; --force is the only way past, and says so.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM signal gate tests: ${unavailable}`);

/** The step is started from outside the job, as a user types it (srun is on PATH beside the other SLURM clients). */
const SRUN = 'srun';

/** Are these pids all still running (not exited, not zombies)? */
function alive(pids: readonly number[]): boolean {
	return pids.every(pid => {
		try {
			process.kill(pid, 0);
			return true;
		} catch {
			return false;
		}
	});
}

describe.skipIf(unavailable !== null)('signal gates with a traintop step in the allocation', () => {
	beforeAll(requireBuild);
	const cluster = slurmForThisFile();
	let overlap: ChildProcess | null = null;
	afterEach(() => {
		overlap?.kill('SIGKILL');
		overlap = null;
	});

	/** The command lines of a step's tasks on this node (`scontrol listpids`). */
	function stepCommands(jobId: string, step: string): string[] {
		const lines = cluster.run('scontrol', ['listpids', jobId]).split('\n').slice(1);
		return lines
			.map(line => line.trim().split(/\s+/))
			.filter(([, , stepId, localId]) => stepId === step && localId !== '-')
			.map(([pid]) => {
				try {
					return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
				} catch {
					return '';
				}
			});
	}

	/** The demo job plus a headless traintop as its own step (J.1), started from outside the job as a user would. */
	async function jobWithTraintopStep(name: string): Promise<DemoJob> {
		const job = await startDemoJob(cluster, name);
		const args = ['--jobid', job.id, '--overlap', '--ntasks=1', process.execPath, CLI, '--headless'];
		overlap = spawn(SRUN, [...args, '--nvidia-smi', '/nonexistent', '--interval', '5', '--no-log'], {
			env: cluster.env,
			stdio: ['ignore', 'ignore', 'pipe'],
		});
		let said = '';
		overlap.stderr?.on('data', (chunk: Buffer) => {
			said += chunk.toString();
		});
		const stepState = () => {
			try {
				return cluster.run('scontrol', ['show', 'step', '-o', `${job.id}.1`]);
			} catch {
				return `no step ${job.id}.1 yet; srun said: ${said}`;
			}
		};
		await until(stepState, text => /State=RUNNING/.test(text), `the traintop step ${job.id}.1 running`, 30_000);
		// Started: its task has taken the name traintop (this checkout's path does not say traintop, the title does).
		await until(
			() => stepCommands(job.id, '1'),
			commands => commands.some(command => command.startsWith('traintop')),
			`the traintop of step ${job.id}.1 started`,
			30_000,
		);
		return job;
	}

	it('SIGUSR2 and SIGHUP, which the ranks do not handle, are refused (exit 3) and the job keeps RUNNING', async () => {
		const job = await jobWithTraintopStep('unhandled');
		const ranks = [job.taskPid(0), job.taskPid(1)];
		for (const signal of ['SIGUSR2', 'SIGHUP']) {
			const run = await traintopOn(cluster, ['signal', signal, '--slurm-job', job.id, '--yes']);
			expect(run.code, run.stderr).toBe(3);
			// Route local (the traintop step is not a target): each rank's refusal is its result line.
			expect(run.stdout).toMatch(
				new RegExp(`rank 0 .*refused: rank 0 has no handler for ${signal}.*--force sends it anyway`),
			);
			expect(run.stderr).toContain(`step ${job.id}.1 is not signalled: none of its tasks is a rank of the job`);
		}
		expect(alive(ranks)).toBe(true);
		expect(cluster.job(Number(job.id)).JobState).toBe('RUNNING');
		cluster.run('scancel', [job.id]);
	}, 180_000);

	it('the save, which the ranks handle, still goes through and a checkpoint appears', async () => {
		const job = await jobWithTraintopStep('save');
		const run = await traintopOn(cluster, ['signal', 'save', '--slurm-job', job.id, job.runDir, '--wait', '--yes']);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toMatch(/^saved checkpoint_step_\d+_\S+ \(step \d+, manual\)/m);
		expect(readdirSync(path.join(job.runDir, 'checkpoints')).some(name => name.startsWith('checkpoint_step_'))).toBe(
			true,
		);
		// The traintop step was not a target: it is still running.
		expect(overlap?.exitCode).toBeNull();
		expect(cluster.job(Number(job.id)).JobState).toBe('RUNNING');
		cluster.run('scancel', [job.id]);
	}, 180_000);

	it('a task that wraps its rank (bash -c without exec) is judged on its own handler: srun would kill the shell', async () => {
		const job = await startDemoJob(cluster, 'wrapped', {wrapped: true});
		const run = await traintopOn(cluster, ['signal', 'save', '--slurm-job', job.id, '--yes']);
		expect(run.code, run.stderr).toBe(3);
		expect(run.stderr).toMatch(
			new RegExp(`task 0 \\(pid \\d+, step ${job.id}\\.0\\) has no handler for SIGUSR1: the signal would terminate it`),
		);
		expect(job.taskOut(0)).not.toContain('got SIGUSR1');
		expect(cluster.job(Number(job.id)).JobState).toBe('RUNNING');
		cluster.run('scancel', [job.id]);
	}, 180_000);

	it('the srun route reads the tasks again right before sending: one stopped after the preview refuses it', async () => {
		const job = await startDemoJob(cluster, 'recheck', {hidden: true});
		const slurmConf = process.env.SLURM_CONF;
		process.env.SLURM_CONF = cluster.env.SLURM_CONF;
		try {
			const set = await scanRanks(DEFAULT_SETTINGS, {kind: 'env'});
			const common = {
				signal: 'SIGUSR1' as const,
				label: 'SIGUSR1 (save)',
				ranks: undefined,
				force: false,
				emergency: false,
			};
			const plan = await slurmPlan({...common, proc: procReader(), jobId: job.id, set, batch: false, pickedBy: 'test'});
			if ('refused' in plan) throw new Error(plan.refused);
			expect(plan.route).toBe('srun');
			// The hidden task stops between the preview and the send: the save would wait pending in it.
			process.kill(job.taskPid(1), 'SIGSTOP');
			await until(
				() => readFileSync(`/proc/${job.taskPid(1)}/stat`, 'utf8').split(') ')[1]?.[0],
				state => state === 'T',
				'task 1 stopped',
			);
			const results = await plan.send();
			expect(results).toEqual([
				expect.objectContaining({outcome: 'refused', reason: expect.stringContaining('task 1 (pid')}),
			]);
			expect(results[0]?.reason).toContain('is stopped: SIGUSR1 would stay pending');
			process.kill(job.taskPid(1), 'SIGCONT');
			expect(job.taskOut(0)).not.toContain('got SIGUSR1');
		} finally {
			if (slurmConf === undefined) delete process.env.SLURM_CONF;
			else process.env.SLURM_CONF = slurmConf;
			cluster.run('scancel', [job.id]);
		}
	}, 180_000);

	it('--force is the only way past, and says what it does', async () => {
		const job = await jobWithTraintopStep('forced');
		const ranks = [job.taskPid(0), job.taskPid(1)];
		const run = await traintopOn(cluster, ['signal', 'SIGUSR2', '--slurm-job', job.id, '--yes', '--force']);
		expect(run.stderr).toMatch(/NO HANDLER: SIGUSR2 would terminate it — sent anyway \(--force\)/);
		expect(run.stdout).toMatch(/forced: rank \d had no handler, the signal terminates it/);
		await until(
			() => alive(ranks),
			live => !live,
			'the forced SIGUSR2 to end the ranks',
			30_000,
		);
		expect(existsSync(job.runDir)).toBe(true);
	}, 180_000);
});
