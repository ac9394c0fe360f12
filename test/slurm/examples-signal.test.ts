import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {describe, expect, it, type TestContext} from 'vitest';
import {ROOT} from '../helpers/dist.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {slurmForThisFile} from '../helpers/slurm-suite.js';
import {until} from '../helpers/until.js';

// examples/python's batch scripts on the real one-node SLURM: where SLURM's time-limit warning goes (--signal with and
// without "B:"), whether the ranks save on it, and whether the job is requeued and resumes from that save. Each job
// gets --time=1 and a 50 s lead on the command line (it overrides the scripts' #SBATCH lines): the warning is due 10 s
// in, but slurmctld checks on a timer and may send it up to a minute early (sbatch(1), --signal), so each job takes
// 5 to 45 s to be warned; the requeue test then starts the requeued job at once instead of waiting out its BeginTime.
// That wait is on slurmctld's clock (its time limits are checked every 30 s, whatever slurm.conf says), so the three
// jobs run side by side on the one node (--oversubscribe: 6 tasks on its 2 CPUs, mostly asleep) and wait it out once:
// about 40 s for the file rather than 30 s a test.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM example tests: ${unavailable}`);

const EXAMPLES = path.join(ROOT, 'examples/python');
const WARNED_WITHIN_MS = 90_000;

describe.skipIf(unavailable !== null)('examples/python batch scripts on a real SLURM', () => {
	const cluster = slurmForThisFile();

	/**
	 * Submits an example script with a 1-minute limit and a 50 s warning lead; the job id, its run dir and output.
	 * The job is cancelled (a requeue recipe loops, warned, saved, requeued…, until then) and its dir removed when
	 * the test ends: the tests run at once, each cleans up its own.
	 */
	function submit(
		{onTestFinished}: TestContext,
		script: string,
		signal: string,
	): {id: number; runDir: string; output: () => string} {
		const dir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-example-'));
		onTestFinished(() => rmSync(dir, {recursive: true, force: true}));
		const runDir = path.join(dir, 'run');
		const out = path.join(dir, 'job.out');
		const submitted = cluster.run('sbatch', [
			'--parsable',
			`--export=ALL,TRAIN_PY=${path.join(EXAMPLES, 'train.py')}`,
			'--time=1',
			'--oversubscribe',
			`--signal=${signal}`,
			`--output=${out}`,
			path.join(EXAMPLES, script),
			runDir,
			...['--step-seconds', '0.05', '--save-every', '0', '--log-every', '0'],
		]);
		const id = Number(submitted.trim().split(';')[0]);
		onTestFinished(() => void cluster.run('scancel', [String(id)]));
		return {id, runDir, output: () => (existsSync(out) ? readFileSync(out, 'utf8') : '')};
	}

	/** The run dir's complete checkpoints with their kind, from the example's metadata file. */
	function checkpoints(runDir: string): {name: string; kind: string}[] {
		const metadata = path.join(runDir, 'checkpoints/checkpoint_metadata.json');
		if (!existsSync(metadata)) return [];
		const entries = (
			JSON.parse(readFileSync(metadata, 'utf8')) as {checkpoints: {checkpoint_path: string; kind: string}[]}
		).checkpoints;
		const complete = new Set(readdirSync(path.join(runDir, 'checkpoints')));
		return entries
			.map(entry => ({name: path.basename(entry.checkpoint_path), kind: entry.kind}))
			.filter(entry => complete.has(entry.name));
	}

	/** Waits for the job's first requeue (its first run cleaned up: the state goes through COMPLETING first). */
	async function requeuedOnce(id: number): Promise<void> {
		const requeued = await until(
			() => cluster.job(id),
			fields => fields.Restarts === '1' && fields.JobState === 'PENDING',
			`job ${id} requeued after the warning`,
			WARNED_WITHIN_MS,
			500,
		);
		// Reason=BeginTime (the requeue delay), or None for the moment before slurmctld sets it on a loaded machine.
		expect(requeued.Requeue).toBe('1');
		expect(requeued.Reason).toMatch(/^(BeginTime|None)$/);
	}

	// One retry: in 2 of 4 clean-clone runs this stop, SLURM 22.05 (the test cluster) ended the requeued job FAILED
	// (NonZeroExitCode) as its second run started, its --open-mode=append output empty; run alone it passes. The
	// failure message carries the job's and the node's state for the next look. The other recipes have not shown it.
	it.concurrent('train.sbatch (--signal=TERM@): the ranks get SIGTERM, save, exit 99; requeued, the next run resumes', {
		retry: 1,
		timeout: 150_000,
	}, async context => {
		const job = submit(context, 'train.sbatch', 'TERM@50');
		await requeuedOnce(job.id);
		const first = job.output();
		// SLURM signalled the step's tasks, both ranks, and not the batch shell (it went on to requeue).
		expect(first).toMatch(/^rank 0 got SIGTERM$/m);
		expect(first).toMatch(/^rank 1 got SIGTERM$/m);
		const saved = /^rank 0 step (\d+) saved (checkpoint_step_\d+_\d{8}_\d{6}) \(emergency\)$/m.exec(first);
		expect(saved, first).not.toBeNull();
		expect(first).toMatch(/^rank 1 exiting with code 99 at step \d+$/m);
		expect(first).toMatch(/^batch: the training step exited 99$/m);
		expect(checkpoints(job.runDir)).toEqual([{name: saved?.[2], kind: 'emergency'}]);

		// A requeued job waits about 2 minutes (Reason=BeginTime); StartTime=now lets it start when the node is free.
		// On a loaded machine slurmctld may set that BeginTime after an early update: ask again while it pends.
		let asked = 0;
		const startNow = (): string => {
			if (Date.now() - asked > 3000 && cluster.job(job.id).JobState === 'PENDING') {
				asked = Date.now();
				cluster.run('scontrol', ['update', `JobId=${job.id}`, 'StartTime=now']);
			}
			return job.output();
		};
		const second = await until(
			startNow,
			text => /^rank 0 resumed at step \d+/m.test(text),
			`job ${job.id}'s second run to resume`,
			60_000,
			200,
		).catch((error: unknown) => {
			const job_ = cluster.job(job.id);
			const fields = ['JobState', 'Reason', 'BeginTime', 'StartTime', 'Restarts', 'NodeList'].map(
				k => `${k}=${job_[k]}`,
			);
			const node = cluster.run('scontrol', ['show', 'node', '--oneliner']).trim();
			throw new Error(`${String(error)}\n--- job: ${fields.join(' ')}\n--- node: ${node}`);
		});
		// --open-mode=append: the first run's lines are still there, the second run's follow them.
		expect(second.startsWith(first)).toBe(true);
		expect(second).toMatch(/^batch: job \d+ run 1 on /m);
		expect(second).toContain(
			`rank 0 resumed at step ${saved?.[1]} from ${path.join(job.runDir, 'checkpoints', saved?.[2] ?? '')}`,
		);
	});

	it.concurrent('train-batch-trap.sbatch (--signal=B:TERM@): the shell traps it and passes SIGTERM on, the ranks save, requeued', async context => {
		const job = submit(context, 'train-batch-trap.sbatch', 'B:TERM@50');
		await requeuedOnce(job.id);
		const output = job.output();
		const lines = output.split('\n');
		// The shell got the warning first, then the ranks through the trap's scancel.
		const trapped = lines.indexOf('batch: got SIGTERM, passing it to the training step');
		expect(trapped, output).toBeGreaterThanOrEqual(0);
		expect(lines.indexOf('rank 0 got SIGTERM')).toBeGreaterThan(trapped);
		expect(lines.indexOf('rank 1 got SIGTERM')).toBeGreaterThan(trapped);
		const saved = /^rank 0 step \d+ saved (checkpoint_step_\S+) \(emergency\)$/m.exec(output);
		expect(saved, output).not.toBeNull();
		expect(output).toMatch(/^batch: the training step exited 99$/m);
		expect(checkpoints(job.runDir)).toEqual([{name: saved?.[1], kind: 'emergency'}]);
	}, 120_000);

	it.concurrent('the old advice, --signal=B:TERM@ without a trap: the shell dies of it, no requeue, FAILED 0:15', async context => {
		const job = submit(context, 'train.sbatch', 'B:TERM@50');
		const ended = await until(
			() => cluster.job(job.id),
			fields => fields.JobState === 'FAILED',
			`job ${job.id} to end after the warning`,
			WARNED_WITHIN_MS,
			500,
		);
		// ExitCode is the batch shell's exit status:signal. The ranks get SIGTERM only as the dead job's steps are torn
		// down (then SIGKILL after KillWait), not ahead of the time limit, and the script's requeue line never runs.
		expect(ended).toMatchObject({ExitCode: '0:15', Restarts: '0'});
		const output = job.output();
		expect(output).toMatch(/^rank 0 ready pid \d+/m);
		expect(output).toMatch(/\*\*\* JOB \d+ ON \S+ CANCELLED AT /);
		expect(output).not.toMatch(/^batch: the training step exited/m);
	}, 120_000);
});
