import {beforeAll, describe, expect, it} from 'vitest';
import {requireBuild} from '../helpers/dist.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {slurmForThisFile} from '../helpers/slurm-suite.js';
import {startDemoJob, traintopOn} from '../helpers/slurm-demo-job.js';

// `traintop drill` on a job of the real one-node test SLURM (slurm-demo-job.ts: 2 srun tasks of the demo rank, which
// saves on SIGUSR1 and on SIGTERM): the lead comes from the job's own `#SBATCH --signal=TERM@60`, read from the
// controller as `ranks --json` reads it, whether RUN_DIR or --job picks the job (then by SLURM's route).

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM drill test: ${unavailable}`);

interface DrillJson {
	route: string;
	results: {outcome: string}[];
	checkpoint: {name: string} | null;
	write_s: number | null;
	readiness: {verdict: string; signal: string; lead_s: number; lead_from: string; reasons: {code: string}[]};
}

describe.skipIf(unavailable !== null)('the drill on a SLURM job', () => {
	beforeAll(requireBuild);
	const cluster = slurmForThisFile();

	it('takes the lead from #SBATCH --signal=TERM@60: ready, by RUN_DIR and by --job J', async () => {
		// The directive as the batch script's first line after the shebang (startDemoJob's line for a trap).
		const job = await startDemoJob(cluster, 'drill', {trap: '#SBATCH --signal=TERM@60'});
		const common = ['--yes', '--json', '--nvidia-smi', '/nonexistent'];
		for (const pick of [[job.runDir], [job.runDir, '--job', job.id]]) {
			const run = await traintopOn(cluster, ['drill', ...pick, ...common]);
			expect(run.code, `${pick.join(' ')}: ${run.stderr}`).toBe(0);
			const body = JSON.parse(run.stdout) as DrillJson;
			expect(body.results.map(r => r.outcome)).toEqual(['sent', 'sent']);
			expect(body.checkpoint?.name, run.stdout).toMatch(/^checkpoint_step_\d+/);
			expect(body.write_s).not.toBeNull();
			expect(body.readiness).toMatchObject({
				verdict: 'ready',
				signal: 'SIGTERM',
				lead_s: 60,
				lead_from: 'scheduler-warning',
			});
			expect(body.readiness.reasons.map(r => r.code)).toEqual(expect.arrayContaining(['handlers', 'lead']));
		}
		// Only the save signal went: both tasks saved for it and run on (SIGTERM would have made them exit 99).
		expect(job.taskOut(0)).not.toMatch(/SIGTERM/);
		expect(job.taskOut(1)).not.toMatch(/SIGTERM/);
		expect(cluster.job(Number(job.id)).JobState).toBe('RUNNING');
	}, 240_000);
});
