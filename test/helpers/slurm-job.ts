import type {SlurmJob, SlurmView} from '../../src/slurm/types.js';

// A SLURM job as the reader gives it, for tests of what is made of one (the job pane, the headless news, the
// requeue events, the memory log's slurm field): job 16 "train", running for 1 min of a 10 min limit on node vm,
// two tasks, requeueable, restart 0, started at `at`. Tests override what they are about.

export function slurmJob(at: number, fields: Partial<SlurmJob> = {}): SlurmJob {
	return {
		jobId: '16',
		arrayJobId: null,
		arrayTaskId: null,
		name: 'train',
		user: 'root',
		partition: 'debug',
		state: 'RUNNING',
		reason: null,
		nodes: 'vm',
		batchHost: 'vm',
		workDir: '/home/alice/llm',
		submitTime: at - 60_000,
		startTime: at - 60_000,
		endTime: at + 540_000,
		elapsedS: 60,
		timeLimitS: 600,
		timeLeftS: 540,
		restarts: 0,
		requeue: true,
		tasks: 2,
		exit: null,
		warning: null,
		warningUnknown: null,
		steps: [],
		...fields,
	};
}

/** The reader's answer for that job, read at `at`. */
export function slurmOk(at: number, fields: Partial<SlurmJob> = {}): SlurmView {
	return {status: 'ok', job: slurmJob(at, fields), readAt: at};
}
