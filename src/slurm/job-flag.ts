import {UsageError} from '../core/errors.js';

// SLURM's flag, `--slurm-job J`: the job ids it takes, and the allocation traintop runs in when it is not given.

const SLURM_JOB = /^\d+(?:_\d+)?(?:\.(?:\d+|batch|extern))?$/;

/**
 * The SLURM job to follow: `--slurm-job J`, else the allocation traintop runs in (SLURM_JOB_ID, set by srun and
 * sbatch); null outside SLURM. An array task is `J_N`; a step `J.S` names its job.
 */
export function slurmJobFromFlags(value: unknown, env: NodeJS.ProcessEnv = process.env): string | null {
	if (value === undefined) {
		const inside = env.SLURM_JOB_ID ?? env.SLURM_JOBID;
		return inside !== undefined && SLURM_JOB.test(inside) ? inside : null;
	}
	const text = String(value).trim();
	if (!SLURM_JOB.test(text)) {
		throw new UsageError(
			`--slurm-job needs a SLURM job id such as 4242, 4242_3 (an array task) or 4242.0 (got ${text})`,
		);
	}
	return text.replace(/\.(?:\d+|batch|extern)$/, '');
}
