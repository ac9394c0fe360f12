import type {SchedulerView} from '../../scheduler/view.js';
import {slurmViewOf} from '../scheduler-state.js';
import {SlurmReport} from './headless-report.js';
import {endedSlurmJobOf, endOf, slurmLines} from './job-lines.js';

// SLURM's job as the generic views show it (scheduler/view.ts): the job pane's lines, a step's end as the controller
// tells it, and the headless news.

export const slurmSchedulerView: SchedulerView = {
	lines: (state, risk, compact) => slurmLines(slurmViewOf(state), risk, compact),
	endedText: (jobId, state) => {
		const job = endedSlurmJobOf(jobId, slurmViewOf(state));
		return job === null ? null : `SLURM job ${job.jobId} ${endOf(job)}`;
	},
	report: () => new SlurmReport(),
};
