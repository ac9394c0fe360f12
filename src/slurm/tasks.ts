import {envInteger} from '../ranks/env-integer.js';
import type {SchedulerTask, SchedulerTasks, TaskStep} from '../scheduler/task.js';
import {SLURM_KIND} from './scheduler-state.js';

// A SLURM task as a rank carries it: its ids from SLURM_* variables, proven by the step's slurmstepd above it or the
// step's cgroup, named `slurm:J.S` on every node, and written under `slurm` in `ranks --json` and on the agent protocol.

/** SLURM's ids from a task's environment; null outside SLURM (no SLURM_JOB_ID). */
function slurmTask(env: ReadonlyMap<string, string>): SchedulerTask | null {
	const jobId = env.get('SLURM_JOB_ID') ?? env.get('SLURM_JOBID');
	if (!jobId) return null;
	return {
		scheduler: SLURM_KIND,
		jobId,
		stepId: env.get('SLURM_STEP_ID') ?? env.get('SLURM_STEPID') ?? null,
		// Absent means 0: SLURM set it only when > 0 before 2026 (training-conventions §5.2).
		restartCount: envInteger(env.get('SLURM_RESTART_COUNT')) ?? 0,
		taskId: envInteger(env.get('SLURM_PROCID')),
	};
}

/** The SLURM job traintop itself runs in (inside an allocation, under srun --overlap), or null. */
export function slurmJobOfTraintop(env: NodeJS.ProcessEnv = process.env): string | null {
	return env.SLURM_JOB_ID ?? env.SLURM_JOBID ?? null;
}

/** The SLURM job id of a job whose ranks are a proven SLURM step; undefined otherwise. */
export function slurmJobOf(job: {readonly task: SchedulerTask | null}): string | undefined {
	return job.task?.scheduler === SLURM_KIND ? job.task.jobId : undefined;
}

/** `4`, `4(x2)` → 4: SLURM's tasks per node when every node has the same number; null for `3,2` or nothing. */
function uniformTasksPerNode(value: string | undefined): number | null {
	const match = value === undefined ? null : /^(\d+)(?:\(x\d+\))?$/.exec(value.trim());
	return match ? Number(match[1]) : null;
}

/** `slurmstepd: [4242.0]` (its whole rewritten command line) → {job: '4242', step: '0'}; array tasks `[4242_3.0]` too. */
function stepOfTitle(title: string): TaskStep | null {
	const match = /^slurmstepd: \[(\d+(?:_\d+)?)\.([A-Za-z0-9_]+)\]$/.exec(title);
	return match ? {job: match[1]!, step: match[2]!} : null;
}

/**
 * The SLURM job and step a /proc/PID/cgroup places the process in: `job_J/step_S` below a slurm directory (cgroup v1
 * `/slurm/uid_U/job_J/step_S/…`, v2 `/system.slice/slurmstepd.scope/job_J/step_S/…`). Only root moves a process there.
 */
function stepOfCgroup(text: string): TaskStep | null {
	for (const line of text.split('\n')) {
		const match = /\/slurm[^/]*\/(?:[^\n]*\/)?job_(\d+)\/step_([A-Za-z0-9_]+)(?:\/|$)/.exec(line);
		if (match) return {job: match[1]!, step: match[2]!};
	}
	return null;
}

/** `998.0`: job.step as squeue writes it. */
const idText = (task: TaskStep): string => (task.step === null ? task.job : `${task.job}.${task.step}`);

export const slurmTasks: SchedulerTasks = {
	fromEnv: slurmTask,
	rankVars: {rank: 'SLURM_PROCID', localRank: 'SLURM_LOCALID', worldSize: 'SLURM_NTASKS'},
	localWorldSize: env =>
		uniformTasksPerNode(env.get('SLURM_STEP_TASKS_PER_NODE')) ?? uniformTasksPerNode(env.get('SLURM_TASKS_PER_NODE')),
	detailVars: ['SLURM_JOB_ID', 'SLURM_STEP_ID', 'SLURM_PROCID', 'SLURM_LOCALID', 'SLURM_NTASKS'],
	// srun forwards signals to its tasks from a signal thread, so /proc shows every signal blocked and unhandled;
	// slurmstepd is the step's daemon; a batch script's sbatch, an allocation's salloc, sattach: none trains.
	programs: ['srun', 'slurmstepd', 'sbatch', 'salloc', 'sattach'],
	// srun(1), SIGNALS AND ESCAPE SEQUENCES: "Signals sent to the srun command are automatically forwarded to the tasks
	// it is controlling" — on every node of the step.
	launcher: 'srun',
	stepDaemon: {comm: 'slurmstepd', step: stepOfTitle},
	cgroupStep: stepOfCgroup,
	jobId: task => `${SLURM_KIND}:${idText(task)}`,
	names: (task, wanted) => wanted === task.jobId || wanted === `${task.jobId}.${task.stepId ?? ''}`,
	idText: task => idText({job: task.jobId, step: task.stepId}),
	wire: {
		key: 'slurm',
		to: task => ({jobId: task.jobId, stepId: task.stepId, restartCount: task.restartCount, procId: task.taskId}),
		from: value => {
			if (typeof value !== 'object' || value === null) return null;
			const v = value as {jobId: string; stepId: string | null; restartCount: number; procId: number | null};
			return {
				scheduler: SLURM_KIND,
				jobId: v.jobId,
				stepId: v.stepId,
				restartCount: v.restartCount,
				taskId: v.procId,
			};
		},
	},
};
