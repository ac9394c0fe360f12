import {copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {createServer, type Server, type Socket} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {SlurmJob, SlurmView} from '../../src/slurm/types.js';
import {DEMO_JOB_DIR} from '../../src/demo/job.js';
import {SlurmJobReader} from '../../src/slurm/job-reader.js';
import {readContext, readSlurmJob, readSlurmJobOnce} from '../../src/slurm/read-job.js';
import {type SlurmCluster, slurmUnavailable, startSlurm} from '../helpers/slurm-cluster.js';
import {until} from '../helpers/until.js';

// The SLURM reader against the real one-node test SLURM: a batch job of two demo ranks under srun, read through
// squeue --json and through the text forms, compared with scontrol's own output; a requeue; an unknown id; and a
// controller that accepts connections but never answers.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM reader tests: ${unavailable}`);

function ok(view: SlurmView): SlurmJob {
	if (view.status !== 'ok') throw new Error(`expected an ok view, got ${JSON.stringify(view)}`);
	return view.job;
}

describe.skipIf(unavailable !== null)('SlurmJobReader on a real SLURM', () => {
	let cluster: SlurmCluster;
	let dir = '';
	let jobId = '';
	const scontrolJob = () => cluster.job(Number(jobId));

	beforeAll(async () => {
		cluster = await startSlurm();
		dir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-reader-'));
		const rank = path.join(DEMO_JOB_DIR, 'rank.py');
		const script = [
			'#!/bin/bash',
			'#SBATCH --job-name=reader-demo',
			'#SBATCH --ntasks=2',
			'#SBATCH --time=5',
			'#SBATCH --requeue',
			'#SBATCH --signal=B:USR1@60',
			'# the ranks get RANK from srun: SLURM_PROCID',
			`srun bash -c 'RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS exec python3 ${rank} --run-dir ${dir}/run --workers 1'`,
			'#SBATCH --signal=TERM@5',
			'',
		].join('\n');
		jobId = String(cluster.sbatch(script, [`--output=${dir}/out-%j.txt`]));
		// Running, with the srun step up (its two tasks started).
		await until(
			() => cluster.run('squeue', ['-h', '-s', '-j', jobId, '-o', '%i']),
			steps => steps.includes(`${jobId}.0`),
			`job ${jobId}'s srun step`,
			30_000,
		);
	}, 90_000);

	afterAll(async () => {
		await cluster?.stop();
		rmSync(dir, {recursive: true, force: true});
	}, 30_000);

	it('reads the running 2-task job as scontrol shows it, through squeue --json', async () => {
		const reader = new SlurmJobReader({jobId, env: cluster.env});
		const job = ok(await reader.refresh());
		const fields = scontrolJob();
		expect(job).toMatchObject({
			jobId,
			name: 'reader-demo',
			state: fields.JobState,
			nodes: fields.NodeList,
			batchHost: fields.BatchHost,
			partition: fields.Partition,
			tasks: Number(fields.NumTasks),
			timeLimitS: 300,
			restarts: Number(fields.Restarts),
			requeue: fields.Requeue === '1',
			reason: null,
			arrayJobId: null,
		});
		expect(fields).toMatchObject({JobState: 'RUNNING', NumTasks: '2', TimeLimit: '00:05:00', Restarts: '0'});
		expect(job.timeLeftS).toBeGreaterThan(0);
		expect(job.timeLeftS).toBeLessThanOrEqual(300);
		// squeue's own list of the live steps and their task counts (%A: tasks of a step).
		const steps = cluster
			.run('squeue', ['-h', '-s', '-j', jobId, '-o', '%i %A %N'])
			.split('\n')
			.filter(Boolean)
			.map(line => line.trim().split(/\s+/));
		expect(job.steps.map(step => [step.id, String(step.tasks), step.nodes]).sort()).toEqual(steps.sort());
		expect(job.steps.find(step => step.id === `${jobId}.0`)).toMatchObject({tasks: 2, state: 'RUNNING'});
		// The last #SBATCH --signal before the first command; the one after it does not count. The script sets no trap
		// for USR1: B: sends it to a batch shell that does nothing with it.
		expect(job.warning).toEqual({signal: 'USR1', leadS: 60, batchOnly: true, from: 'batch script', shellTrap: 'none'});
		expect(job.warningUnknown).toBeNull();
	});

	it('reads the same job through the text forms (scontrol show job/step -o)', async () => {
		const context = readContext(cluster.env);
		const fromJson = ok(await readSlurmJob(context, jobId));
		const text = readContext(cluster.env);
		text.json = false;
		const fromText = ok(await readSlurmJob(text, jobId));
		// The elapsed time comes from the read's clock (JSON) or RunTime (text): compared without it.
		const {elapsedS: _a, timeLeftS: _b, ...json} = fromJson;
		const {elapsedS: _c, timeLeftS: _d, ...scontrol} = fromText;
		expect(scontrol).toEqual(json);
		expect(fromText.elapsedS).not.toBeNull();
	});

	it('says not-found for an id SLURM does not know, in both forms', async () => {
		expect(await readSlurmJobOnce('999999', cluster.env)).toMatchObject({status: 'not-found', jobId: '999999'});
		const text = readContext(cluster.env);
		text.json = false;
		expect(await readSlurmJob(text, '999999')).toMatchObject({status: 'not-found'});
	});

	it('says the warning cannot be known when --signal was given on the sbatch command line', async () => {
		const held = cluster.sbatch('#!/bin/bash\nsleep 1\n', ['--hold', '--signal=USR2@90', '--output=/dev/null']);
		try {
			const job = ok(await readSlurmJobOnce(String(held), cluster.env));
			expect(job).toMatchObject({state: 'PENDING', reason: 'JobHeldUser', warning: null, steps: []});
			expect(job.warningUnknown).toMatch(/no #SBATCH --signal in the batch script; .*sbatch command line/);
			// And indeed scontrol does not show it anywhere.
			expect(cluster.run('scontrol', ['show', 'job', '-o', String(held)])).not.toMatch(/USR2|@90/);
		} finally {
			cluster.run('scancel', [String(held)]);
		}
	});

	it('says squeue is missing when it is not installed', async () => {
		const view = await readSlurmJobOnce(jobId, {...cluster.env, PATH: dir});
		expect(view).toMatchObject({status: 'unavailable', reason: 'squeue not found: not on a SLURM node'});
	});

	it('answers at once and keeps the last job while the controller does not answer', async () => {
		// A copy of the cluster's slurm.conf, later pointed at a port that accepts connections and never answers.
		const conf = path.join(dir, 'slurm.conf');
		copyFileSync(cluster.env.SLURM_CONF!, conf);
		const sockets: Socket[] = [];
		const silent: Server = createServer(socket => sockets.push(socket));
		await new Promise<void>(resolve => silent.listen(0, '127.0.0.1', resolve));
		const port = (silent.address() as {port: number}).port;
		try {
			const reader = new SlurmJobReader({jobId, env: {...cluster.env, SLURM_CONF: conf}, timeoutMs: 2_000});
			const views: SlurmView[] = [];
			reader.onChange(view => views.push(view));
			reader.start();
			await until(
				() => views.length,
				count => count >= 1,
				'the first read',
			);
			const first = ok(reader.current());
			writeFileSync(conf, readFileSync(conf, 'utf8').replace(/^SlurmctldPort=\d+$/m, `SlurmctldPort=${port}`));
			let settled = false;
			const hanging = reader.refresh().then(view => {
				settled = true;
				return view;
			});
			await until(
				() => sockets.length,
				count => count > 0,
				'squeue to connect to the silent controller',
			);
			// The read is stuck on the controller, and current() still answers, with the last good view.
			expect(settled).toBe(false);
			expect(reader.current()).toMatchObject({status: 'ok', job: {jobId}});
			const view = await hanging;
			reader.stop();
			expect(view.status).toBe('unavailable');
			if (view.status !== 'unavailable') return;
			expect(view.reason).toMatch(new RegExp(`^slurmctld at ${cluster.node}:${port} not answering: no answer from`));
			expect(view.last).toEqual(first);
			expect(reader.current()).toBe(view);
			expect(views.at(-1)).toBe(view);
		} finally {
			for (const socket of sockets) socket.destroy();
			silent.close();
		}
	}, 30_000);

	it("reads every TRAINTOP_TEST_SLURM_POLL_MS ms when set (the tests' interval), below the users' 10 s floor", async () => {
		const reader = new SlurmJobReader({jobId, env: {...cluster.env, TRAINTOP_TEST_SLURM_POLL_MS: '200'}});
		const views: SlurmView[] = [];
		reader.onChange(view => views.push(view));
		reader.start();
		try {
			// The first read and two on the clock: at the floor those two would take 20 s.
			await until(
				() => views.length,
				count => count >= 3,
				'three reads',
				19_000,
			);
		} finally {
			reader.stop();
		}
		expect(views.map(view => view.status)).toEqual(views.map(() => 'ok'));
	});

	it('sees a requeue: restart 1, and the batch script read once per run', async () => {
		const context = readContext(cluster.env);
		expect(ok(await readSlurmJob(context, jobId)).restarts).toBe(0);
		expect(ok(await readSlurmJob(context, jobId)).restarts).toBe(0);
		cluster.run('scontrol', ['requeue', jobId]);
		const job = ok(await readSlurmJob(context, jobId));
		expect(scontrolJob().Restarts).toBe('1');
		expect(job.restarts).toBe(1);
		expect(job.requeue).toBe(true);
		expect(['PENDING', 'RUNNING', 'REQUEUED', 'COMPLETING']).toContain(job.state);
		expect(job.warning).toMatchObject({signal: 'USR1', leadS: 60});
		expect([...context.scripts.keys()]).toEqual([`${jobId}:0`, `${jobId}:1`]);
	});
});
