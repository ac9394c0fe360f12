import {runSlurmCommand} from './scancel.js';

// What the signal routes need to know of a SLURM job, from `scontrol show job -o J` and `scontrol show step -o J`
// (one record a line of Key=Value words, scontrol(1) -o/--oneliner): where the batch shell runs, each step's
// task count and the host and pid of the srun that launched it. Parsers are pure; readJobFacts does the I/O.

export interface StepFacts {
	/** `3.0`, `3.batch`, `3.extern`. */
	readonly id: string;
	readonly state: string;
	readonly tasks: number;
	/** Where the step's srun runs and its pid there (`SrunHost:Pid=vm:7500`); null for the batch/extern steps. */
	readonly srun: {readonly host: string; readonly pid: number} | null;
}

export interface JobFacts {
	readonly jobId: string;
	readonly state: string;
	readonly batchHost: string | null;
	readonly userId: number | null;
	/** The steps that run tasks (not `batch`, not `extern`): what `scancel --signal` without --batch reaches. */
	readonly steps: readonly StepFacts[];
}

/** Key → value of one `-o` record; a value runs to the next space (the fields read here never hold one). */
function fields(line: string): Map<string, string> {
	const map = new Map<string, string>();
	for (const match of line.matchAll(/(?:^|\s)([A-Za-z:]+)=(\S*)/g)) map.set(match[1]!, match[2]!);
	return map;
}

function orNull(value: string | undefined): string | null {
	return value === undefined || value === '' || value === '(null)' ? null : value;
}

/** `scontrol show step -o J`: the task steps, in order. */
export function parseSteps(text: string): StepFacts[] {
	const steps: StepFacts[] = [];
	for (const line of text.split('\n')) {
		const f = fields(line);
		const id = f.get('StepId');
		if (!id || /\.(batch|extern|interactive)$/.test(id)) continue;
		// SrunHost:Pid=(null):0 for steps no srun launched (src/scontrol/info_job.c prints srun_host:srun_pid).
		const srun = /^(.+):(\d+)$/.exec(f.get('SrunHost:Pid') ?? '');
		const host = orNull(srun?.[1]);
		const pid = Number(srun?.[2] ?? 0);
		steps.push({
			id,
			state: f.get('State') ?? 'UNKNOWN',
			tasks: Number(f.get('Tasks') ?? 0) || 0,
			srun: host !== null && pid > 1 ? {host, pid} : null,
		});
	}
	return steps;
}

/** `scontrol show job -o J`: the job's state, batch host and user (the first record: an array's own job). */
export function parseJob(text: string): Omit<JobFacts, 'steps'> | null {
	const f = fields(text.split('\n')[0] ?? '');
	const jobId = f.get('JobId');
	if (!jobId) return null;
	const user = /\((\d+)\)$/.exec(f.get('UserId') ?? '');
	return {
		jobId,
		state: f.get('JobState') ?? 'UNKNOWN',
		batchHost: orNull(f.get('BatchHost')),
		userId: user ? Number(user[1]) : null,
	};
}

/** The job as the controller sees it, or why it cannot be read (no such job, no answer, no SLURM here). */
export async function readJobFacts(jobId: string): Promise<{facts: JobFacts} | {problem: string}> {
	const job = await runSlurmCommand('scontrol', ['show', 'job', '-o', jobId]);
	if (job.failure) return {problem: job.failure};
	const parsed = job.code === 0 ? parseJob(job.stdout) : null;
	if (!parsed) {
		const said = job.stderr.trim().replace(/^slurm_load_jobs error: /, '') || `exit ${job.code}`;
		return {problem: `scontrol show job ${jobId}: ${said}`};
	}
	const steps = await runSlurmCommand('scontrol', ['show', 'step', '-o', jobId]);
	if (steps.failure) return {problem: steps.failure};
	// A job with no step yet answers "Invalid job id" here (exit 1): no steps, not an error.
	return {facts: {...parsed, steps: steps.code === 0 ? parseSteps(steps.stdout) : []}};
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
}

/** `scontrol listpids J`: `PID JOBID STEPID LOCALID GLOBALID` lines after a header. */
export function parseListPids(text: string): LocalPids {
	let batchShell: number | null = null;
	const tasks = new Set<number>();
	for (const line of text.split('\n').slice(1)) {
		const [pid, , step, localId] = line.trim().split(/\s+/);
		const n = Number(pid);
		if (!Number.isSafeInteger(n) || n <= 1) continue;
		if (step === 'batch') {
			if (localId === '0') batchShell = n;
		} else if (step !== 'extern' && localId !== '-') tasks.add(n);
	}
	return {batchShell, tasks};
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
	return /There are no steps for job/.test(result.stderr) ? {batchShell: null, tasks: new Set()} : null;
}
