import type {JobEvent, RankSet} from '../core/job-types.js';
import type {SchedulerEntry} from '../scheduler/entry.js';
import type {JobEndWatch, SchedulerSource, SchedulerState} from '../scheduler/types.js';
import {srunConnection} from './agent-transport.js';
import {readSlurmBatchScript} from './batch-readiness.js';
import {SlurmEndWatch} from './end-events.js';
import {slurmJobNodes} from './job-nodes.js';
import {SlurmJobReader} from './job-reader.js';
import {readSlurmJobOnce} from './read-job.js';
import {slurmKind} from './kind.js';
import {SLURM_OPTION_WORDS, SLURM_OPTIONS, slurmJobFromFlags} from './options.js';
import {slurmState, slurmViewOf} from './scheduler-state.js';
import {slurmJobPick, slurmPlan} from './signal-plan.js';
import {slurmJobOfTraintop} from './tasks.js';
import {slurmSchedulerView} from './views/scheduler-view.js';

// SLURM as a scheduler (scheduler/types.ts): the job read from slurmctld on its own slow cadence, a step's end held
// for the controller's exit, the signal route through srun or scancel, and agents through one `srun --overlap`.

/** A step's end completed by the controller's answer (end-events.ts), on the SLURM detail of the state. */
function endWatch(): JobEndWatch {
	const watch = new SlurmEndWatch();
	return {
		update: (events: readonly JobEvent[], state: SchedulerState | null, time: number, ranks: RankSet | null) =>
			watch.update(events, slurmViewOf(state), time, ranks),
	};
}

function follow(jobId: string): SchedulerSource {
	const reader = new SlurmJobReader({jobId});
	// One state per answer: the reader's view is a new object only when it read, so views memoise on the state.
	let view = reader.current();
	let state = slurmState(view, jobId);
	return {
		current: () => {
			const now = reader.current();
			if (now !== view) {
				view = now;
				state = slurmState(now, jobId);
			}
			return state;
		},
		onChange: listener => reader.onChange(() => listener()),
		refresh: () => reader.refresh(),
		start: () => reader.start(),
		stop: () => reader.stop(),
		endWatch: endWatch(),
	};
}

export const slurmScheduler: SchedulerEntry = {
	...slurmKind,
	jobOfTraintop: env => slurmJobOfTraintop(env),
	readOnce: async jobId => slurmState(await readSlurmJobOnce(jobId), jobId),
	logKey: 'slurm',
	options: SLURM_OPTIONS,
	optionWords: SLURM_OPTION_WORDS,
	jobFlag: {name: 'slurmJob', jobOf: slurmJobFromFlags},
	// Read from the controller only when asked: its module stays unloaded otherwise.
	nodeName: env => env.SLURMD_NODENAME,
	view: slurmSchedulerView,
	signalAdvice: warning =>
		`under SLURM: put \`#SBATCH --signal=${warning}@120\` in the batch script (a --signal on the sbatch command line shows nowhere); not \`B:${warning}\`, which signals the batch shell, not the ranks`,
	readBatchScript: readSlurmBatchScript,
	workDir: async jobId => (await import('./job-work-dir.js')).jobWorkDir(jobId),
	follow,
	signal: {
		pick: (set, job, flag) => {
			const jobId = slurmJobPick(set, job, flag);
			if (jobId === null) return null;
			return {jobId, pickedBy: flag === null ? `--job ${jobId}` : `--slurm-job ${jobId}`};
		},
		plan: slurmPlan,
	},
	agents: {nodes: jobId => slurmJobNodes(jobId), connection: srunConnection},
};
