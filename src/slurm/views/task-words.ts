import type {SchedulerTaskWords} from '../../scheduler/kind.js';

// SLURM's words about its tasks, for the generic views that name a rank's scheduler (format/whole-job.ts,
// ui/confirm-text.ts).

export const slurmTaskWords: SchedulerTaskWords = {
	launcherEndsStep:
		'srun ends the whole step when a task exits with an error if it runs with --kill-on-bad-exit (or KillOnBadExit=1)',
	reachEveryTask: (action, jobId) => `\`traintop signal ${action} --slurm-job ${jobId}\` reaches every task (scancel)`,
};
