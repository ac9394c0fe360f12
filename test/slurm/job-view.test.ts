import {spawnSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {put} from '../checkpoints/fixtures.js';
import {CLI} from '../helpers/dist.js';
import {type CliRun, runCli, startCli} from '../helpers/run-cli.js';
import {type SlurmCluster, slurmUnavailable, startSlurm} from '../helpers/slurm-cluster.js';
import {Terminal} from '../helpers/tmux.js';
import {until} from '../helpers/until.js';

// The job as SLURM sees it, in traintop's own views, against a real one-node SLURM: headless (its lines and --json
// records) and the TUI's job pane, their fields against scontrol's own answer; a requeue; a controller that stops
// answering. The reader asks the controller every 15 s at most, so each change takes up to that long to show.

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

const slurmRecords = (stdout: string): Record[] =>
	stdout
		.split('\n')
		.filter(line => line.includes('"event":"slurm"'))
		.map(line => JSON.parse(line) as Record);

describe.skipIf(unavailable !== null)('the SLURM job in traintop, against a real SLURM', () => {
	let cluster: SlurmCluster;
	let run: CliRun | null = null;
	let term: Terminal | null = null;
	beforeAll(async () => {
		cluster = await startSlurm();
	}, 90_000);
	afterAll(async () => {
		await cluster?.stop();
	}, 30_000);
	afterEach(() => {
		run?.child.kill('SIGKILL');
		run = null;
		term?.close();
		term = null;
		// This cluster's jobs only (SLURM_CONF); a controller already stopped has none to cancel.
		spawnSync('scancel', ['--user=root'], {env: cluster.env});
	});

	async function runningJob(): Promise<number> {
		const id = cluster.sbatch(SCRIPT, [`--output=${cluster.dir}/view-%j.out`]);
		const steps = () => cluster.run('squeue', ['-h', '-s', '-j', String(id), '-o', '%i']);
		await until(steps, list => list.includes(`${id}.0`), `job ${id}'s step running`, 60_000);
		return id;
	}

	it('headless: the job as scontrol gives it, the warning from the batch script, the work at risk; a requeue', async () => {
		const id = await runningJob();
		run = startCli(['--headless', '--json', '--slurm-job', String(id), '--no-log', '--nvidia-smi', '/nonexistent'], {
			env: cluster.env,
		});
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
		expect(run.stderr()).toMatch(
			new RegExp(
				`SLURM job ${id} tt-view · RUNNING · root · debug · nodes ${cluster.node} · 2 tasks · restart 0, requeueable; time .* of 3 m 00 s`,
			),
		);
		expect(run.stderr()).toContain('warning SIGUSR1 to the batch shell 1 m 00 s before the end (batch script)');

		// `traintop ranks --slurm-job J`: that job's ranks only, its two tasks.
		const ranks = await runCli(['ranks', '--json', '--slurm-job', String(id)], {env: cluster.env});
		const listed = JSON.parse(ranks.stdout) as {ranks: {slurm: {job_id: string} | null}[]};
		expect(listed.ranks.map(r => r.slurm?.job_id)).toEqual([String(id), String(id)]);

		cluster.run('scontrol', ['requeue', String(id)]);
		await until(
			() => cluster.job(id).Restarts,
			restarts => restarts === '1',
			'the requeue',
			20_000,
		);
		await run.waitFor(o => new RegExp(`WARN slurm job ${id} requeued \\(restart 1\\)`).test(o.stderr), 40_000);
		// The same news on stdout (its own pipe: it may come a moment after stderr's line).
		await run.waitFor(o => slurmRecords(o.stdout).some(r => r.job?.restarts === 1), 10_000);
		const requeued = slurmRecords(run.stdout()).find(r => r.job?.restarts === 1);
		expect(requeued?.job?.state).toMatch(/^(PENDING|REQUEUED|RUNNING)$/);
	}, 180_000);

	it('the TUI job pane beside the ranks, in a real terminal', async () => {
		const id = await runningJob();
		const conf = cluster.env.SLURM_CONF ?? '';
		term = new Terminal(
			120,
			40,
			`SLURM_CONF=${conf} ${process.execPath} ${CLI} --slurm-job ${id} --no-log --nvidia-smi /nonexistent`,
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
		run = startCli(['--headless', '--slurm-job', String(id), '--no-log', '--nvidia-smi', '/nonexistent'], {
			env: cluster.env,
		});
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
