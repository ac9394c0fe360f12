import type {SchedulerTasks, TaskStep} from '../../../src/scheduler/task.js';

// The fake scheduler's tasks: a rank carries FAKE_JOB_ID, FAKE_STEP and FAKE_TASK; its step is proven by a
// `fake-stepd: [J.S]` daemon above it or by the cgroup `/fake.slice/job-J/step-S`; its job is `fake:J.S` on every node.

const FAKE_KIND = 'fake';

const index = (value: string | undefined): number | null =>
	value !== undefined && /^\d+$/.test(value) ? Number(value) : null;

const idText = (task: TaskStep): string => (task.step === null ? task.job : `${task.job}.${task.step}`);

export const fakeTasks: SchedulerTasks = {
	fromEnv: env => {
		const jobId = env.get('FAKE_JOB_ID');
		if (!jobId) return null;
		return {
			scheduler: FAKE_KIND,
			jobId,
			stepId: env.get('FAKE_STEP') ?? null,
			restartCount: index(env.get('FAKE_RESTARTS')) ?? 0,
			taskId: index(env.get('FAKE_TASK')),
		};
	},
	rankVars: {rank: 'FAKE_TASK', localRank: 'FAKE_LOCAL_TASK', worldSize: 'FAKE_TASKS'},
	localWorldSize: env => index(env.get('FAKE_TASKS_HERE')),
	detailVars: ['FAKE_JOB_ID', 'FAKE_STEP', 'FAKE_TASK'],
	programs: ['fake-run', 'fake-stepd'],
	launcher: 'fake-run',
	stepDaemon: {
		comm: 'fake-stepd',
		step: title => {
			const match = /^fake-stepd: \[([\w-]+)\.(\w+)\]$/.exec(title);
			return match ? {job: match[1]!, step: match[2]!} : null;
		},
	},
	cgroupStep: text => {
		const match = /\/fake\.slice\/job-([\w-]+)\/step-(\w+)(?:\/|$)/m.exec(text);
		return match ? {job: match[1]!, step: match[2]!} : null;
	},
	jobId: task => `${FAKE_KIND}:${idText(task)}`,
	names: (task, wanted) => wanted === task.jobId || wanted === idText({job: task.jobId, step: task.stepId}),
	idText: task => idText({job: task.jobId, step: task.stepId}),
};
