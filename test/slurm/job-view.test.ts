import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {put, seedCheckpoint, seedMetadata} from '../checkpoints/fixtures.js';
import {CLI} from '../helpers/dist.js';
import {ownedByTest} from '../helpers/owned-by-test.js';
import {runCli, startCli} from '../helpers/run-cli.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {
	cancelJobs,
	jobWithStepRunning,
	READ_EVERY_SECOND,
	readEverySecond,
	slurmForThisFile,
} from '../helpers/slurm-suite.js';
import {Terminal} from '../helpers/tmux.js';
import {until} from '../helpers/until.js';

// The job as SLURM sees it, in traintop's own views, against a real one-node SLURM: headless (its lines and --json
// records) and the TUI's job pane, their fields against scontrol's own answer; a requeue; a controller that stops
// answering. The reader asks the controller every 15 s; the traintops here every second (readEverySecond), so a change
// shows within a second or two.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM job view tests: ${unavailable}`);

/** Two srun tasks for 5 minutes; the warning to the batch shell 60 s before a 3-minute limit; requeueable. */
const SCRIPT = [
	'#!/bin/bash',
	'#SBATCH --job-name=tt-view',
	'#SBATCH --ntasks=2',
	'#SBATCH --time=3',
	'#SBATCH --signal=B:USR1@60',
	'#SBATCH --requeue',
	"trap 'echo batch got USR1' USR1",
	'srun sleep 300 &',
	'wait',
	'',
].join('\n');

type Record = {
	event: string;
	status: string;
	reason: string | null;
	job: {
		job_id: string;
		name: string;
		state: string;
		nodes: string;
		tasks: number | null;
		time_limit_s: number | null;
		restarts: number;
		requeue: boolean;
		warning: {signal: string; lead_s: number; batch_only: boolean; from: string} | null;
		steps: {id: string; tasks: number | null}[];
	} | null;
	time_at_risk: {text: string; level: string} | null;
};

/** The job events among the records (core/requeue-events.ts, the checkpoint events). */
type EventRecord = {event: string; level: string; job: string | null; text: string; checkpoint?: string};

const jobEvents = (stdout: string): EventRecord[] =>
	stdout
		.split('\n')
		.filter(line => line.startsWith('{"event":') && !line.includes('"event":"slurm"'))
		.map(line => JSON.parse(line) as EventRecord);

const slurmRecords = (stdout: string): Record[] =>
	stdout
		.split('\n')
		.filter(line => line.includes('"event":"slurm"'))
		.map(line => JSON.parse(line) as Record);

describe.skipIf(unavailable !== null)('the SLURM job in traintop, against a real SLURM', () => {
	const cluster = slurmForThisFile();
	let runDir = '';
	const owned = ownedByTest(() => {
		if (runDir !== '') rmSync(runDir, {recursive: true, force: true});
		runDir = '';
		cancelJobs(cluster);
	});

	const runningJob = (): Promise<number> => jobWithStepRunning(cluster, SCRIPT, 'view-%j.out');

	it('headless: the job as scontrol gives it, the warning from the batch script, the work at risk', async () => {
		const id = await runningJob();
		const run = owned.run(
			startCli(['--headless', '--json', '--slurm-job', String(id), '--no-log', '--nvidia-smi', '/nonexistent'], {
				env: readEverySecond(cluster),
			}),
		);
		await run.waitFor(o => slurmRecords(o.stdout).some(r => r.status === 'ok'), 30_000);
		const record = slurmRecords(run.stdout()).find(r => r.status === 'ok');
		const own = cluster.job(id);
		expect(record?.job).toMatchObject({
			job_id: String(id),
			name: own.JobName,
			state: own.JobState,
			nodes: own.NodeList,
			tasks: Number(own.NumTasks),
			time_limit_s: 180,
			restarts: Number(own.Restarts),
			requeue: own.Requeue === '1',
			warning: {signal: 'USR1', lead_s: 60, batch_only: true, from: 'batch script'},
		});
		expect(record?.job?.steps).toEqual(expect.arrayContaining([expect.objectContaining({id: `${id}.0`, tasks: 2})]));
		expect(record?.time_at_risk?.text).toMatch(/^time limit in [23] min; /);
		// The same report's lines on stderr: a pipe of its own, read in its own time (CI once read it first).
		const head = new RegExp(
			`SLURM job ${id} tt-view · RUNNING · root · debug · nodes ${cluster.node} · 2 tasks · restart 0, requeueable; time .* of 3 m 00 s`,
		);
		await run.waitFor(o => head.test(o.stderr), 30_000);
		await run.waitFor(
			o => o.stderr.includes('warning SIGUSR1 to the batch shell 1 m 00 s before the end (batch script)'),
			30_000,
		);

		// `traintop ranks --slurm-job J`: that job's ranks only, its two tasks.
		// Room for a loaded machine: the CLI's default 15 s was seen to run out at a load of 100.
		const ranks = await runCli(['ranks', '--json', '--slurm-job', String(id)], {env: cluster.env, timeoutMs: 60_000});
		const listed = JSON.parse(ranks.stdout) as {ranks: {slurm: {job_id: string} | null}[]};
		expect(listed.ranks.map(r => r.slurm?.job_id)).toEqual([String(id), String(id)]);
	}, 120_000);

	it('a requeue: the event names the newest checkpoint, the timeline carries on, the new run resumes from it', async () => {
		runDir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-requeue-'));
		const now = Date.now();
		const saves = [100, 200].map((step, i) =>
			seedCheckpoint(runDir, {step, epoch: i, kind: 'periodic', time: now - (2 - i) * 60_000}),
		);
		seedMetadata(runDir, saves, 5);
		const id = await runningJob();
		const args = [
			'--headless',
			'--json',
			'--slurm-job',
			String(id),
			runDir,
			'--no-log',
			'--nvidia-smi',
			'/nonexistent',
		];
		const run = owned.run(startCli(args, {env: readEverySecond(cluster)}));
		await run.waitFor(o => slurmRecords(o.stdout).some(r => r.status === 'ok'), 30_000);

		cluster.run('scontrol', ['requeue', String(id)]);
		await run.waitFor(o => jobEvents(o.stdout).some(e => e.event === 'requeued'), 40_000);
		const newest = saves[1]!;
		expect(jobEvents(run.stdout()).find(e => e.event === 'requeued')).toMatchObject({
			level: 'warn',
			job: `slurm:${id}`,
			text: `SLURM job ${id} requeued (restart 1); newest checkpoint on disk ${newest.name} (step 200)`,
			checkpoint: newest.name,
		});
		expect(run.stderr()).toMatch(
			new RegExp(`WARN SLURM job ${id} requeued \\(restart 1\\); newest checkpoint on disk`),
		);
		await run.waitFor(o => slurmRecords(o.stdout).some(r => r.job?.restarts === 1), 10_000);

		// A requeued job waits out a BeginTime (about 2 minutes): StartTime=now lets it run again at once.
		let asked = 0;
		const again = await until(
			() => {
				const job = cluster.job(id);
				if (job.JobState === 'PENDING' && Date.now() - asked > 3000) {
					asked = Date.now();
					cluster.run('scontrol', ['update', `JobId=${id}`, 'StartTime=now']);
				}
				return job;
			},
			job => job.JobState === 'RUNNING' && job.Restarts === '1',
			`job ${id} running again`,
			60_000,
			500,
		);
		// The new run's first save (as its training loop would write it), stamped after the run's start.
		const started = Date.parse(again.StartTime ?? '');
		const third = seedCheckpoint(runDir, {
			step: 300,
			epoch: 2,
			kind: 'periodic',
			time: Math.max(Date.now(), started + 2000),
		});
		seedMetadata(runDir, [...saves, third], 5);
		await run.waitFor(o => jobEvents(o.stdout).some(e => e.event === 'resumed'), 40_000);
		expect(jobEvents(run.stdout()).find(e => e.event === 'resumed')).toMatchObject({
			level: 'ok',
			job: `slurm:${id}`,
			text: `SLURM job ${id} requeued (restart 1), resumed from ${newest.name} (step 200): its first save since is ${third.name} (step 300)`,
		});
		// The timeline carried on across the requeue: the saves from before were not seen anew, the new one was.
		expect(
			jobEvents(run.stdout())
				.filter(e => e.event === 'save-seen')
				.map(e => e.checkpoint),
		).toEqual([third.name]);
	}, 180_000);

	it('the TUI job pane beside the ranks, in a real terminal', async () => {
		const id = await runningJob();
		const conf = cluster.env.SLURM_CONF ?? '';
		const term = owned.term(
			new Terminal(
				120,
				40,
				`SLURM_CONF=${conf} TRAINTOP_TEST_SLURM_POLL_MS=${READ_EVERY_SECOND.TRAINTOP_TEST_SLURM_POLL_MS} ${process.execPath} ${CLI} --slurm-job ${id} --no-log --nvidia-smi /nonexistent`,
			),
		);
		const screen = await term.until(
			s => new RegExp(`^SLURM job ${id} tt-view · RUNNING`, 'm').test(s),
			'the job pane',
			30_000,
		);
		expect(screen).toMatch(
			new RegExp(
				`^SLURM job ${id} tt-view · RUNNING · root · debug · nodes ${cluster.node} · 2 tasks · restart 0, requeueable$`,
				'm',
			),
		);
		expect(screen).toMatch(
			/^time .* of 3 m 00 s · .* left · warning SIGUSR1 to the batch shell 1 m 00 s before the end \(batch script\)$/m,
		);
		expect(screen).toMatch(/^time limit in [23] min; /m);
		expect(screen).toMatch(new RegExp(`^steps .*${id}\\.0 sleep \\(2 tasks, RUNNING\\)`, 'm'));
		// The job's two tasks are its ranks (SLURM_PROCID): the ranks pane names the job after its step.
		expect(screen).toMatch(new RegExp(`^RANKS 2 .*job slurm:${id}\\.0`, 'm'));
	}, 120_000);

	it("traintop checkpoints --slurm-job J: the job's working directory is the RUN_DIR; an unknown job is a usage error", async () => {
		const workDir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-workdir-'));
		try {
			put(workDir, 'checkpoint-100/trainer_state.json', '{"global_step": 100, "epoch": 1}');
			const id = cluster.sbatch(SCRIPT, [`--chdir=${workDir}`, `--output=${cluster.dir}/view-%j.out`]);
			const result = await runCli(['checkpoints', '--slurm-job', String(id), '--json'], {env: cluster.env});
			expect(result.code).toBe(0);
			expect(result.stderr).toContain(`traintop: RUN_DIR: SLURM job ${id}'s working directory ${workDir}`);
			const index = JSON.parse(result.stdout) as {run_dir: string; checkpoints: {name: string; framework: string}[]};
			expect(index.run_dir).toBe(workDir);
			expect(index.checkpoints).toEqual([
				expect.objectContaining({name: 'checkpoint-100', framework: 'Hugging Face Trainer'}),
			]);
			const unknown = await runCli(['checkpoints', '--slurm-job', '4', '--json'], {env: cluster.env});
			expect(unknown.code).toBe(2);
			expect(unknown.stderr).toContain('--slurm-job 4: the controller knows no such job; give RUN_DIR');
		} finally {
			rmSync(workDir, {recursive: true, force: true});
		}
	}, 60_000);

	it('a controller that stops answering: headless says so and keeps monitoring', async () => {
		const id = await runningJob();
		const run = owned.run(
			// A status line every second (not every 30 s), to see it go on after the warning.
			startCli(
				['--headless', '--slurm-job', String(id), '--no-log', '--log-interval', '1', '--nvidia-smi', '/nonexistent'],
				{env: readEverySecond(cluster)},
			),
		);
		await run.waitFor(o => new RegExp(`SLURM job ${id} tt-view · RUNNING`).test(o.stderr), 30_000);
		// The job's tasks go first (nothing is left running once the controller is gone), then the controller.
		cluster.run('scancel', [String(id)]);
		const ctld = Number(readFileSync(path.join(cluster.dir, 'slurmctld.pid'), 'utf8').trim());
		process.kill(ctld, 'SIGKILL');
		await run.waitFor(o => /WARN slurm: slurmctld at .* not answering/.test(o.stderr), 60_000);
		// Still sampling: a status line after the warning.
		const after = run.stdout().length;
		await run.waitFor(o => o.stdout.length > after && /ram \S/.test(o.stdout.slice(after)), 30_000);
		expect(run.child.exitCode).toBeNull();
	}, 150_000);
});
