import type {SlurmStep} from './types.js';
import {pickJob} from './job-record.js';
import {parseScontrolJobs} from './parse-scontrol-job.js';
import {isNoStepsAnswer, parseScontrolSteps} from './parse-steps.js';
import {runSlurmCommand} from './scancel.js';

// What the signal routes need to know of a SLURM job: where the batch shell runs, each task step's task count and
// the host and pid of the srun that launched it. Read with `scontrol show job/step -o J` through the job reader's
// own parsers (parse-scontrol-job.ts, parse-steps.ts); this file does the I/O and keeps the task steps.

/** A step that runs tasks, with its srun (SrunHost:Pid); its task count 0 when scontrol gave none. */
export type StepFacts = Pick<SlurmStep, 'id' | 'state' | 'srun'> & {readonly tasks: number};

export interface JobFacts {
	readonly jobId: string;
	readonly state: string;
	readonly batchHost: string | null;
	/** The steps that run tasks (not `batch`, not `extern`): what `scancel --signal` without --batch reaches. */
	readonly steps: readonly StepFacts[];
}

/** The task steps among `scontrol show step -o J`'s, in order. */
export function taskSteps(steps: readonly SlurmStep[]): StepFacts[] {
	return steps
		.filter(step => !/\.(batch|extern|interactive)$/.test(step.id))
		.map(step => ({id: step.id, state: step.state, srun: step.srun, tasks: step.tasks ?? 0}));
}

/** The job as the controller sees it, or why it cannot be read (no such job, no answer, no SLURM here). */
export async function readJobFacts(jobId: string): Promise<{facts: JobFacts} | {problem: string}> {
	const job = await runSlurmCommand('scontrol', ['show', 'job', '-o', jobId]);
	if (job.failure) return {problem: job.failure};
	const record = job.code === 0 ? pickJob(parseScontrolJobs(job.stdout), jobId) : null;
	if (!record) {
		const said = job.stderr.trim().replace(/^slurm_load_jobs error: /, '') || `exit ${job.code}`;
		return {problem: `scontrol show job ${jobId}: ${said}`};
	}
	const {jobId: id, state, batchHost} = record;
	const steps = await runSlurmCommand('scontrol', ['show', 'step', '-o', id]);
	if (steps.failure) return {problem: steps.failure};
	// A job with no step yet answers "Job step J. not found" or "Invalid job id" (exit 1): no steps, not an error.
	if (steps.code !== 0 && !isNoStepsAnswer(steps.stdout) && !/Invalid job id/i.test(steps.stderr))
		return {problem: `scontrol show step ${id}: ${steps.stderr.trim() || `exit ${steps.code}`}`};
	const names = [id];
	if (record.arrayJobId !== null && record.arrayTaskId !== null)
		names.push(`${record.arrayJobId}_${record.arrayTaskId}`);
	const parsed = steps.code === 0 ? parseScontrolSteps(steps.stdout, names) : [];
	return {facts: {jobId: id, state, batchHost, steps: taskSteps(parsed)}};
}

/** The batch script as submitted (`scontrol write batch_script J -`), or null when it cannot be read. */
export async function readBatchScript(jobId: string): Promise<string | null> {
	const result = await runSlurmCommand('scontrol', ['write', 'batch_script', jobId, '-']);
	return result.code === 0 && result.stdout !== '' ? result.stdout : null;
}

/** The job's processes on this node as its slurmstepds list them: the batch shell, and each task by step. */
export interface LocalPids {
	/** The batch step's LOCALID 0: the batch shell itself (its other pids are its children, srun among them). */
	readonly batchShell: number | null;
	/** Task pids of the job's steps (not the batch step). */
	readonly tasks: ReadonlySet<number>;
	/** The same tasks by step (`0`, `1`: listpids' STEPID), each with its task number (GLOBALID). */
	readonly byStep: ReadonlyMap<string, readonly StepTask[]>;
}

/** One task of a step, as this node's slurmstepd lists it: its main process, not its children. */
export interface StepTask {
	readonly pid: number;
	readonly task: number | null;
}

/** `scontrol listpids J`: `PID JOBID STEPID LOCALID GLOBALID` lines after a header. */
export function parseListPids(text: string): LocalPids {
	let batchShell: number | null = null;
	const tasks = new Set<number>();
	const byStep = new Map<string, StepTask[]>();
	for (const line of text.split('\n').slice(1)) {
		const [pid, , step, localId, globalId] = line.trim().split(/\s+/);
		const n = Number(pid);
		if (!Number.isSafeInteger(n) || n <= 1 || step === undefined) continue;
		if (step === 'batch') {
			if (localId === '0') batchShell = n;
		} else if (step !== 'extern' && localId !== '-') {
			tasks.add(n);
			const task = Number(globalId);
			byStep.set(step, [...(byStep.get(step) ?? []), {pid: n, task: Number.isSafeInteger(task) ? task : null}]);
		}
	}
	return {batchShell, tasks, byStep};
}

/**
 * The job's processes here, from this node's slurmd's step daemons (scontrol(1) listpids: it asks the
 * slurmstepds through their sockets in SlurmdSpoolDir, so only this cluster's job J counts even where another
 * SLURM on the same host has a job J too). An empty set when the job has no step here; null when this node
 * has no slurmd of the cluster to ask (a login node) or it did not answer.
 */
export async function readLocalPids(jobId: string): Promise<LocalPids | null> {
	const result = await runSlurmCommand('scontrol', ['listpids', jobId]);
	if (result.failure) return null;
	if (result.code === 0) return parseListPids(result.stdout);
	return /There are no steps for job/.test(result.stderr)
		? {batchShell: null, tasks: new Set(), byStep: new Map()}
		: null;
}
