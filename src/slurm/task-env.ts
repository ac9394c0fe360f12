import type {SlurmInfo} from '../core/types.js';
import {envInteger} from '../ranks/tree.js';

/** SLURM's ids from a task's environment; null outside SLURM (no SLURM_JOB_ID). */
export function slurmInfo(env: ReadonlyMap<string, string>): SlurmInfo | null {
	const jobId = env.get('SLURM_JOB_ID') ?? env.get('SLURM_JOBID');
	if (!jobId) return null;
	return {
		jobId,
		stepId: env.get('SLURM_STEP_ID') ?? env.get('SLURM_STEPID') ?? null,
		// Absent means 0: SLURM set it only when > 0 before 2026 (training-conventions §5.2).
		restartCount: envInteger(env.get('SLURM_RESTART_COUNT')) ?? 0,
		procId: envInteger(env.get('SLURM_PROCID')),
	};
}

/** The SLURM job traintop itself runs in (inside an allocation, under srun --overlap), or null. */
export function slurmJobOfTraintop(env: NodeJS.ProcessEnv = process.env): string | null {
	return env.SLURM_JOB_ID ?? env.SLURM_JOBID ?? null;
}
