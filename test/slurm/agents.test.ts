import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {CLI, ROOT} from '../helpers/dist.js';
import {ownedByTest} from '../helpers/owned-by-test.js';
import {runCli, startCli} from '../helpers/run-cli.js';
import {Terminal} from '../helpers/tmux.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {cancelJobsAndWait, READ_EVERY_SECOND, slurmForThisFile} from '../helpers/slurm-suite.js';
import {until} from '../helpers/until.js';

// A SLURM job's nodes through `traintop agent` on each, on the real one-node SLURM: `traintop --slurm-job J --agents`
// starts one `srun --jobid J --overlap` step whose task on each node is an agent, shows the job's ranks from it, and
// `traintop signal save --slurm-job J --agents` saves through it; nothing of either is left in the job after.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM agents tests: ${unavailable}`);

const TRAIN_PY = path.join(ROOT, 'examples/python/train.py');

describe.skipIf(unavailable !== null)('--slurm-job J --agents on a real SLURM', () => {
	const cluster = slurmForThisFile();
	let dir = '';
	const owned = ownedByTest(async () => {
		// The cancelled ranks may still be writing into the run dir for a moment: gone first, then removed.
		await cancelJobsAndWait(cluster);
		rmSync(dir, {recursive: true, force: true, maxRetries: 5, retryDelay: 200});
	});

	/** This build as `traintop` on the node's PATH (srun passes the environment on). */
	function env(): NodeJS.ProcessEnv {
		const bin = path.join(dir, 'bin');
		mkdirSync(bin, {recursive: true});
		writeFileSync(path.join(bin, 'traintop'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`);
		chmodSync(path.join(bin, 'traintop'), 0o755);
		return {...cluster.env, PATH: `${bin}:${process.env.PATH}`};
	}

	/** The job's live steps, as squeue lists them. */
	const steps = (id: number) =>
		cluster
			.run('squeue', ['-h', '-s', '-j', String(id), '-o', '%i'])
			.split('\n')
			.map(line => line.trim())
			.filter(line => line !== '');

	/** A job whose one step sleeps, under a 10-minute limit, once its step runs (the run dir: `dir`). */
	async function sleepingJob(name: string): Promise<number> {
		dir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-agents-'));
		const id = cluster.sbatch('#!/bin/bash\nsrun sleep 300\n', [
			`--job-name=${name}`,
			'--time=10',
			`--output=${dir}/job.out`,
		]);
		await until(
			() => steps(id),
			list => list.includes(`${id}.0`),
			`job ${id}'s step running`,
			60_000,
		);
		return id;
	}

	it('shows the ranks from the agent step, saves through it, and leaves no step behind', async () => {
		dir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-agents-'));
		const runDir = path.join(dir, 'run');
		const script = [
			'#!/bin/bash',
			'#SBATCH --job-name=tt-agents',
			'#SBATCH --ntasks=2',
			`srun bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS exec python3 ${TRAIN_PY} --run-dir ${runDir} --step-seconds 0.05 --save-every 0 --log-every 0'`,
			'',
		].join('\n');
		const id = cluster.sbatch(script, [`--output=${dir}/job.out`]);
		await until(
			() => steps(id),
			list => list.includes(`${id}.0`),
			`job ${id}'s ranks running`,
			60_000,
		);

		const viewer = ['--slurm-job', String(id), '--agents', '--headless', '--json', runDir];
		const run = owned.run(
			startCli([...viewer, '--nvidia-smi', '/nonexistent', '--interval', '0.5', '--log-interval', '1'], {
				env: env(),
			}),
		);
		await run.waitFor(o => new RegExp(`node ${cluster.node} connected`).test(o.stderr), 60_000);
		// The agent's own step runs beside the job's; the job's two tasks are its ranks, seen by that agent.
		await until(
			() => steps(id),
			list => list.includes(`${id}.1`),
			`the agent step ${id}.1`,
			10_000,
		);
		await run.waitFor(o => new RegExp(`${cluster.node} ranks: rank 0 .*rank 1 .* found`).test(o.stderr), 30_000);
		// Its node's log, written here, named after the node. The run dir may not be there yet: the ranks make it, after
		// importing torch where it is installed (seconds).
		await until(
			() => (existsSync(runDir) ? readdirSync(runDir) : []),
			files => files.includes(`traintop-memory.${cluster.node}.jsonl`),
			'log',
			10_000,
		);

		const saved = await runCli(
			['signal', 'save', runDir, '--slurm-job', String(id), '--agents', '--yes', '--wait', '--json', '--timeout', '30'],
			{env: env(), timeoutMs: 90_000},
		);
		expect(saved.code, saved.stderr).toBe(0);
		const body = JSON.parse(saved.stdout) as {
			route: string;
			results: {target: string; outcome: string}[];
			checkpoint: {saved: boolean; kind: string};
		};
		expect(body.route).toBe('agents');
		expect(body.results.map(r => [r.target, r.outcome])).toEqual([
			[`${cluster.node} rank 0`, 'sent'],
			[`${cluster.node} rank 1`, 'sent'],
		]);
		expect(body.checkpoint).toMatchObject({saved: true, kind: 'manual'});
		expect(saved.stderr).toContain('route: agents');

		// Ended: the viewer's agent step goes with it (stdin closed, the agents exit, srun ends the step).
		run.child.kill('SIGTERM');
		expect(await run.exited).toBe(0);
		await until(
			() => steps(id),
			list => list.every(step => /\.(0|batch|extern)$/.test(step)),
			`job ${id} back to its own steps`,
			20_000,
		);
		expect(cluster.job(id).JobState).toBe('RUNNING');
	}, 240_000);

	it("headless: the job's time left once at the top level (no node's name), from the agents' controller readings", async () => {
		const id = await sleepingJob('tt-top');
		const viewer = ['--slurm-job', String(id), '--agents', '--headless', '--json', '--no-log'];
		const run = owned.run(
			startCli([...viewer, '--nvidia-smi', '/nonexistent', '--interval', '0.5', '--log-interval', '1'], {env: env()}),
		);
		type Line = {event?: string; host?: string; job?: {job_id: string; time_left_s: number | null}};
		const slurmRecords = (stdout: string) =>
			stdout
				.split('\n')
				.filter(line => line.startsWith('{'))
				.map(line => JSON.parse(line) as Line)
				.filter(line => line.event === 'slurm');
		await run.waitFor(o => slurmRecords(o.stdout).length > 0, 60_000);
		const [record] = slurmRecords(run.stdout());
		expect(record).not.toHaveProperty('host');
		expect(record?.job?.job_id).toBe(String(id));
		expect(record?.job?.time_left_s).toBeGreaterThan(0);
		expect(record?.job?.time_left_s).toBeLessThanOrEqual(600);
		// Its line on stderr is the one-node view's, not prefixed with the node that read it.
		const jobLine = new RegExp(`^traintop: \\d{4}-\\d\\d-\\d\\d \\S+ SLURM job ${id} tt-top · RUNNING .* left`, 'm');
		await run.waitFor(o => jobLine.test(o.stderr), 30_000);
		run.child.kill('SIGTERM');
		expect(await run.exited).toBe(0);
	}, 180_000);

	it("the many-node TUI: the job's pane, its time left and restarts, above the list of nodes, in a real terminal", async () => {
		const id = await sleepingJob('tt-tui');
		const vars = env();
		const term = owned.term(
			new Terminal(
				120,
				40,
				`PATH=${vars.PATH} SLURM_CONF=${vars.SLURM_CONF ?? ''} TRAINTOP_TEST_SLURM_POLL_MS=${READ_EVERY_SECOND.TRAINTOP_TEST_SLURM_POLL_MS} ${process.execPath} ${CLI} --slurm-job ${id} --agents --no-log --nvidia-smi /nonexistent; echo "traintop exited $?"; sleep 60`,
			),
		);
		const screen = await term.until(
			s => new RegExp(`^SLURM job ${id} tt-tui · RUNNING`, 'm').test(s) && /^NODES 1 node/m.test(s),
			'the job pane above the nodes',
			60_000,
		);
		const lines = screen.split('\n');
		const job = lines.findIndex(line => line.startsWith(`SLURM job ${id} `));
		// The job's own facts at the top of the screen, not inside a node's view: its first line, then the nodes.
		expect(job).toBe(0);
		expect(lines.findIndex(line => line.startsWith('NODES '))).toBeGreaterThan(job);
		expect(lines[job]).toContain('restart 0');
		expect(screen).toMatch(/^time .* of 10 m 00 s · .* left/m);
		term.keys('q');
		await term.until(s => /^traintop exited 0$/m.test(s), 'traintop to quit with 0', 20_000);
	}, 180_000);
});
