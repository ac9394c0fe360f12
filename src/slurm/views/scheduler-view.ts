import type {SchedulerView} from '../../scheduler/view.js';
import {slurmViewOf} from '../scheduler-state.js';
import {SlurmReport} from './headless-report.js';
import {slurmLines, slurmStepEnd} from './job-lines.js';

// SLURM's job as the generic views show it (scheduler/view.ts): the job pane's lines, a step's end as the controller
// tells it, and the headless news.

export const slurmSchedulerView: SchedulerView = {
	lines: (state, risk, compact) => slurmLines(slurmViewOf(state), risk, compact),
	endedText: (jobId, state) => slurmStepEnd(jobId, slurmViewOf(state)),
	report: () => new SlurmReport(),
};
