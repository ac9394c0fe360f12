import {spawnSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import {beforeAll, describe, expect, it} from 'vitest';
import {OPTIONS} from '../../src/config/options.js';
import {requireBuild} from '../helpers/dist.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {slurmForThisFile} from '../helpers/slurm-suite.js';
import {startDemoJob, traintopOn} from '../helpers/slurm-demo-job.js';
import {until} from '../helpers/until.js';

// `traintop signal` on a SLURM job, against the real one-node test SLURM: a batch job running the demo ranks as
// two srun tasks. The routes: scancel from where no process of the job is visible (a PID namespace with its own
// /proc: a login node's view), srun when some tasks are not visible here, the guarded local send when all are;
// the batch shell never without --batch, and --batch refused where the shell has no handler.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM signal tests: ${unavailable}`);
// `unshare --pid --fork --mount-proc` (util-linux; root) gives traintop a /proc with none of the job's processes.
const noNamespace =
	unavailable ?? (spawnSync('unshare', ['-pf', '--mount-proc', 'true']).status === 0 ? null : 'unshare -pf fails here');
if (noNamespace && !unavailable) console.warn(`skipping the login-node-view SLURM tests: ${noNamespace}`);

// --slurm-job once the option table has it, --job until then (a SLURM job id that no local job answers to).
const JOB_FLAG = OPTIONS.some(option => option.name === 'slurmJob') ? '--slurm-job' : '--job';

describe.skipIf(unavailable !== null)('signal to a SLURM job on the real test SLURM', () => {
	beforeAll(requireBuild);
	const cluster = slurmForThisFile();

	const traintop = (args: readonly string[], isolated = false) => traintopOn(cluster, args, isolated);
	const demoJob = (name: string, options: {trap?: string; hidden?: boolean} = {}) =>
		startDemoJob(cluster, name, options);

	it.skipIf(noNamespace !== null)(
		'scancel from where none of the job is visible: a new checkpoint, the job still RUNNING',
		async () => {
			const job = await demoJob('scancel');
			// No task's handling of SIGUSR1 can be read from here: the save is refused unless --force.
			const unread = await traintop(['signal', 'save', JOB_FLAG, job.id, '--yes'], true);
			expect(unread.code, unread.stderr).toBe(3);
			expect(unread.stderr).toContain(
				`step ${job.id}.0 (2 tasks) has no task on this node: their handling of SIGUSR1 cannot be read here (--agents reads it on each node), and SIGUSR1 would terminate any that has no handler (--force sends it anyway); nothing sent`,
			);
			expect(job.taskOut(0)).not.toContain('got SIGUSR1');
			const args = ['signal', 'save', JOB_FLAG, job.id, job.runDir, '--wait', '--yes', '--json', '--force'];
			const run = await traintop(args, true);
			expect(run.code, run.stderr).toBe(0);
			const out = JSON.parse(run.stdout);
			expect(out.route).toBe('scancel');
			expect(out.results).toEqual([
				expect.objectContaining({pid: null, target: `steps of job ${job.id}`, outcome: 'sent'}),
			]);
			expect(out.checkpoint).toMatchObject({saved: true, attributed: true, kind: 'manual'});
			expect(run.stderr).toContain(`scancel --signal=USR1 ${job.id}`);
			expect(run.stderr).toContain('would terminate any that has no handler — sent anyway (--force)');
			// Both tasks got it (the steps), the batch shell did not (it has no handler: it would have ended the job).
			expect(job.taskOut(1)).toContain('rank 1 got SIGUSR1');
			expect(cluster.job(Number(job.id)).JobState).toBe('RUNNING');
			cluster.run('scancel', [job.id]);
		},
		120_000,
	);

	it.skipIf(noNamespace !== null)(
		'SIGSTOP through scancel needs --force, as a local send does: refused, no task of the job is stopped',
		async () => {
			const job = await demoJob('stop');
			const run = await traintop(['signal', 'SIGSTOP', JOB_FLAG, job.id, '--yes'], true);
			expect(run.code, run.stderr).toBe(3);
			expect(run.stderr).toContain('SIGSTOP would stop (hang the job) any that has no handler');
			const pids = [0, 1].map(n => Number(/ready pid (\d+)/.exec(job.taskOut(n))?.[1]));
			// T in /proc/PID/stat: stopped. The signal would have arrived before scancel returned.
			for (const pid of pids) expect(readFileSync(`/proc/${pid}/stat`, 'utf8')).not.toMatch(/\) T /);
			cluster.run('scancel', [job.id]);
		},
		120_000,
	);

	it('--batch is refused where the batch shell has no handler, and the job keeps RUNNING', async () => {
		const job = await demoJob('no-handler');
		// On its node: the disposition in /proc says no handler.
		const here = await traintop(['signal', 'save', JOB_FLAG, job.id, '--batch', '--yes']);
		expect(here.code, here.stderr).toBe(3);
		expect(here.stderr).toContain('the batch shell has no handler for SIGUSR1: it would die and take the job down');
		if (!noNamespace) {
			// Off its node: the batch script sets no trap for it.
			const away = await traintop(['signal', 'save', JOB_FLAG, job.id, '--batch', '--yes'], true);
			expect(away.code, away.stderr).toBe(3);
			expect(away.stderr).toContain('its batch script sets no trap for USR1');
		}
		expect(cluster.job(Number(job.id)).JobState).toBe('RUNNING');
		expect(job.taskOut(0)).not.toContain('got SIGUSR1');
		cluster.run('scancel', [job.id]);
	}, 120_000);

	it('a batch shell that traps USR1 to requeue is not signalled without --batch; --batch says what its trap does', async () => {
		const job = await demoJob('trap', {trap: "trap 'scontrol requeue $SLURM_JOB_ID' USR1"});
		const isolated = noNamespace === null;
		// From a login node's view no rank's handler can be read: --force says that the save is wanted all the same.
		const save = await traintop(
			['signal', 'save', JOB_FLAG, job.id, job.runDir, '--wait', '--yes', ...(isolated ? ['--force'] : [])],
			isolated,
		);
		expect(save.code, save.stderr).toBe(0);
		expect(save.stderr).toContain(
			'the batch shell traps SIGUSR1 (`scontrol requeue $SLURM_JOB_ID`: requeues the job: its steps are killed and it starts again); it is not signalled (only --batch does that)',
		);
		expect(save.stdout).toMatch(/^saved checkpoint_step_\d+_\S+ \(step \d+, manual\)/m);
		// Without a terminal and without --yes, --batch shows the trap's likely effect and sends nothing (exit 2).
		const batch = await traintop(['signal', 'save', JOB_FLAG, job.id, '--batch']);
		expect(batch.code).toBe(2);
		expect(batch.stderr).toContain(
			`the batch shell of job ${job.id}: its trap \`scontrol requeue $SLURM_JOB_ID\` requeues the job`,
		);
		expect(batch.stderr).toContain('no terminal to confirm on');
		expect(cluster.job(Number(job.id))).toMatchObject({JobState: 'RUNNING', Restarts: '0'});
		cluster.run('scancel', [job.id]);
	}, 120_000);

	it('srun forwards to every task when some are not visible here; the local send when all are', async () => {
		const job = await demoJob('srun', {hidden: true});
		const srunPid = Number(
			/SrunHost:Pid=\S+:(\d+)/.exec(cluster.run('scontrol', ['show', 'step', '-o', `${job.id}.0`]))?.[1],
		);
		// Both tasks' handling is read here, the one traintop does not count as a rank too: SIGUSR2 kills them.
		const usr2 = await traintop(['signal', 'SIGUSR2', JOB_FLAG, job.id, '--yes']);
		expect(usr2.code, usr2.stderr).toBe(3);
		expect(usr2.stderr).toContain(`rank 0 (pid ${job.taskPid(0)}, step ${job.id}.0) has no handler for SIGUSR2`);
		expect(usr2.stderr).toContain(`task 1 (pid ${job.taskPid(1)}, step ${job.id}.0) has no handler for SIGUSR2`);
		const run = await traintop(['signal', 'save', JOB_FLAG, job.id, job.runDir, '--wait', '--yes', '--json']);
		expect(run.code, run.stderr).toBe(0);
		const out = JSON.parse(run.stdout);
		expect(out.route).toBe('srun');
		expect(out.results).toEqual([
			expect.objectContaining({pid: srunPid, outcome: 'sent', target: `srun of step ${job.id}.0`}),
		]);
		expect(out.checkpoint).toMatchObject({saved: true, kind: 'manual'});
		expect(run.stderr).toContain('1 of 2 tasks are visible here');
		// The task traintop cannot see got it too: srun forwarded it.
		await until(
			() => job.taskOut(1),
			text => text.includes('got SIGUSR1'),
			'the hidden task to get SIGUSR1',
		);
		cluster.run('scancel', [job.id]);

		const all = await demoJob('local');
		const local = await traintop(['signal', 'save', JOB_FLAG, all.id, all.runDir, '--wait', '--yes', '--json']);
		expect(local.code, local.stderr).toBe(0);
		const body = JSON.parse(local.stdout);
		expect(body.route).toBe('local');
		expect(body.results.map((r: {rank: number; outcome: string}) => [r.rank, r.outcome])).toEqual([
			[0, 'sent'],
			[1, 'sent'],
		]);
		expect(body.checkpoint).toMatchObject({saved: true, kind: 'manual'});
		cluster.run('scancel', [all.id]);
	}, 180_000);
});
