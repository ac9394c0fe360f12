import {mkdirSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it, type TestContext} from 'vitest';
import {ROOT} from '../helpers/dist.js';
import {reason, verdictSeen} from '../helpers/readiness-events.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {jobWithStepRunning, readEverySecond, slurmForThisFile} from '../helpers/slurm-suite.js';
import {freePort} from '../helpers/free-port.js';

// Preemption readiness under a real one-node SLURM (KillWait=5 in its slurm.conf): the warning's signal and lead
// are read from the batch script's `#SBATCH --signal`, `B:` sends it to the batch shell alone, and the save times are
// the run dir's. The ranks are srun's tasks, as many jobs start them (no torchrun between).

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM readiness tests: ${unavailable}`);

const DDP_JOB = path.join(ROOT, 'test/fixtures/jobs/ddp_plain.py');

describe.skipIf(unavailable !== null)('readiness under SLURM', () => {
	const cluster = slurmForThisFile();

	async function started({onTestFinished}: TestContext, script: string): Promise<number> {
		const id = await jobWithStepRunning(cluster, script, 'readiness-%j.out');
		onTestFinished(() => void cluster.run('scancel', [String(id)]));
		return id;
	}

	function watch({onTestFinished}: TestContext, id: number, runDir: string | null): CliRun {
		const args = ['--headless', '--json', '--slurm-job', String(id), '--no-log', '--nvidia-smi', '/nonexistent'];
		const run = startCli(runDir === null ? args : [runDir, ...args], {env: readEverySecond(cluster)});
		onTestFinished(() => void run.child.kill('SIGKILL'));
		return run;
	}

	it.concurrent('--signal=USR1@30 with saves of 40 s: at-risk, naming the save and the lead', async context => {
		const runDir = path.join(cluster.dir, `run-usr1-${Date.now()}`);
		mkdirSync(runDir);
		const port = freePort();
		const id = await started(
			context,
			[
				'#!/bin/bash',
				'#SBATCH --signal=USR1@30',
				'#SBATCH --ntasks=2',
				'#SBATCH --oversubscribe',
				'#SBATCH --time=10',
				`export MASTER_ADDR=127.0.0.1 MASTER_PORT=${port} WORLD_SIZE=2 OMP_NUM_THREADS=1`,
				// Each task a rank, its RANK from srun's task id: the DDP job handles USR1 (a save) and TERM.
				`srun bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID exec /usr/bin/python3 -u ${DDP_JOB} --run-dir ${runDir} --save-every 20 --step-seconds 0.05 --save-seconds 40'`,
				'',
			].join('\n'),
		);
		const run = watch(context, id, runDir);
		const atRisk = await verdictSeen(run, 'at-risk', 150_000);
		expect(atRisk).toMatchObject({job: `slurm:${id}.0`, signal: 'SIGUSR1', lead_s: 30, lead_from: 'scheduler-warning'});
		expect(reason(atRisk, 'handlers')).toMatchObject({count: 2, signal: 'SIGUSR1'});
		const over = reason(atRisk, 'save-over-lead');
		expect(over?.limit_s).toBe(30);
		// The job wrote the checkpoint's bytes over 40 s; the files' own times say how long it took.
		expect(over?.seconds).toBeGreaterThan(39);
		expect(over?.seconds).toBeLessThan(45);
		expect(over?.text).toMatch(/^the slowest save took \d+ s \(ckpt_step\d+\.pt\), longer than the 30 s it gets$/);
		// Its line on stderr, a pipe of its own, read in its own time.
		const line = new RegExp(`readiness slurm:${id}\\.0: at-risk — the slowest save took`);
		await run.waitFor(o => line.test(o.stderr), 30_000);
		console.log(`SLURM readiness, --signal=USR1@30: ${atRisk.verdict}; ${over?.text}`);
	}, 240_000);

	it.concurrent('B:TERM@120 with the handler only in the ranks: not-ready, the ranks never see it', async context => {
		const rank = 'import signal, time; signal.signal(signal.SIGTERM, lambda *a: None); time.sleep(600)';
		const id = await started(
			context,
			[
				'#!/bin/bash',
				'#SBATCH --signal=B:TERM@120',
				'#SBATCH --oversubscribe',
				'#SBATCH --time=10',
				`srun python3 -c '${rank}'`,
				'',
			].join('\n'),
		);
		const run = watch(context, id, null);
		const notReady = await verdictSeen(run, 'not-ready', 60_000);
		expect(notReady).toMatchObject({job: `slurm:${id}.0`, signal: 'SIGTERM'});
		expect(reason(notReady, 'handlers')).toMatchObject({count: 1});
		expect(reason(notReady, 'batch-shell-only')?.text).toBe(
			'B:TERM goes to the batch shell alone, which has no trap for it: the ranks never see it',
		);
	}, 120_000);

	it.concurrent('no --signal: the kill comes KillWait (5 s) after SIGTERM', async context => {
		const rank = 'import signal, time; signal.signal(signal.SIGTERM, lambda *a: None); time.sleep(600)';
		const id = await started(
			context,
			['#!/bin/bash', '#SBATCH --oversubscribe', '#SBATCH --time=10', `srun python3 -c '${rank}'`, ''].join('\n'),
		);
		const run = watch(context, id, null);
		// No run dir: the save time is unknown, so is the verdict; the lead is the controller's KillWait, once read.
		const unknown = await verdictSeen(run, 'unknown', 60_000, e => e.lead_s !== null);
		expect(unknown).toMatchObject({signal: 'SIGTERM', lead_s: 5, lead_from: 'kill-wait'});
		expect(reason(unknown, 'no-save-seen')).toBeDefined();
	}, 120_000);
});
