import type {SchedulerTaskJson} from '../scheduler/kind.js';
import type {SchedulerTask} from '../scheduler/task.js';
import {slurmViewOf} from './scheduler-state.js';

// A SLURM task in `ranks --json` (a contract): `slurm` on each rank and job, its ids as SLURM names them; a job's also
// carries its time limit and time left (seconds, as headless's `time_limit_s`/`time_left_s`) when the controller's
// answer (`--slurm-job J`) is about this job; both null otherwise (not asked, not read, or UNLIMITED).

const rank = (task: SchedulerTask) => ({
	job_id: task.jobId,
	step_id: task.stepId,
	restart_count: task.restartCount,
	procid: task.taskId,
});

export const slurmTaskJson: SchedulerTaskJson = {
	key: 'slurm',
	rank,
	job: (task, controller) => {
		const view = slurmViewOf(controller);
		const own = view?.status === 'ok' && view.job.jobId === task.jobId ? view.job : null;
		return {...rank(task), time_limit_s: own?.timeLimitS ?? null, time_left_s: own?.timeLeftS ?? null};
	},
};
