import {readFileSync} from 'node:fs';
import {localPlan} from '../../../src/commands/signal-plan.js';
import type {SchedulerEntry} from '../../../src/scheduler/entry.js';
import type {SchedulerJob, SchedulerState} from '../../../src/scheduler/types.js';
import {fakeTasks} from './tasks.js';

// A scheduler that is not SLURM, to show the seam holds: its job's identity, deadline and requeues come from a JSON
// file the test writes (what a controller would answer), and its signal route reaches the tasks that file lists
// through the guarded local send. It lives in its own folder and joins traintop by one registerScheduler line.

/** What the test writes: the job as this scheduler sees it. */
export interface FakeJobFile {
	readonly id: string;
	readonly state: 'PENDING' | 'RUNNING' | 'DONE';
	readonly startTime: number | null;
	readonly restarts: number;
	readonly timeLeftS: number | null;
	readonly warning: {readonly signal: string; readonly leadS: number} | null;
	readonly graceS: number | null;
	/** The pids of the job's tasks on this node: its signal route's only targets. */
	readonly tasks: readonly number[];
}

export const FAKE_KIND = 'fake';

function read(file: string): FakeJobFile {
	return JSON.parse(readFileSync(file, 'utf8')) as FakeJobFile;
}

function jobOf(job: FakeJobFile): SchedulerJob {
	return {
		id: job.id,
		eventJob: `${FAKE_KIND}:${job.id}`,
		state: job.state,
		phase: job.state === 'RUNNING' ? 'running' : job.state === 'DONE' ? 'ended' : 'pending',
		startTime: job.startTime,
		restarts: job.restarts,
		requeueable: true,
		exit: null,
		deadline: {timeLeftS: job.timeLeftS, warning: job.warning, graceS: job.graceS},
	};
}

/** The fake scheduler answering from `file`: every read is the file as it is now, a new state only when it changed. */
export function fakeScheduler(file: string): SchedulerEntry {
	return {
		kind: FAKE_KIND,
		name: 'FAKE',
		tasks: fakeTasks,
		jobOfTraintop: env => env.FAKE_JOB_ID ?? null,
		// Its own key in the memory log, its own flag, its own job pane lines: the hooks SLURM's folder fills too.
		logKey: 'fake',
		options: [
			{
				name: 'fakeJob',
				usage: '--fake-job J',
				kind: 'string',
				description: "the FAKE scheduler's job",
				commands: ['monitor', 'signal'],
				after: 'job',
			},
		],
		jobFlag: {
			name: 'fakeJob',
			jobOf: (value, env) => (value === undefined ? (env.FAKE_JOB_ID ?? null) : String(value)),
		},
		view: {
			lines: state =>
				state.job === null
					? []
					: [{text: `FAKE job ${state.job.id} · ${state.job.state} · restart ${state.job.restarts}`, level: 'ok'}],
			report: () => ({update: () => ({lines: [], records: []})}),
		},
		follow: jobId => {
			let text = '';
			let state: SchedulerState | null = null;
			return {
				current: () => {
					const now = readFileSync(file, 'utf8');
					if (state === null || now !== text) {
						text = now;
						const job = read(file);
						state =
							job.id === jobId
								? {
										kind: FAKE_KIND,
										name: 'FAKE',
										status: 'ok',
										jobId,
										readAt: Date.now(),
										job: jobOf(job),
										reason: null,
									}
								: {
										kind: FAKE_KIND,
										name: 'FAKE',
										status: 'not-found',
										jobId,
										readAt: Date.now(),
										job: null,
										reason: null,
									};
					}
					return state;
				},
			};
		},
		signal: {
			pick: (_set, job, flag) => {
				const wanted = flag ?? job;
				return wanted !== null && wanted === read(file).id ? {jobId: wanted, pickedBy: `--job ${wanted}`} : null;
			},
			plan: async input => {
				const tasks = new Set(read(file).tasks);
				const jobs = input.set.jobs.filter(job => job.ranks.some(rank => tasks.has(rank.pid)));
				if (jobs.length === 0) return {refused: `no task of FAKE job ${input.jobId} runs here`, unknownJob: true};
				return localPlan(jobs, `${input.pickedBy}; the FAKE scheduler's tasks here`, input, 'fake');
			},
		},
	};
}
