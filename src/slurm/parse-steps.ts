import type {SlurmStep} from './types.js';
import {scontrolFields} from './parse-scontrol-job.js';

// `scontrol show step -o J`: one line per live step, `StepId=42.0 … State=RUNNING … NodeList=n1 … Tasks=2
// Name=python …` (src/api/step_info.c, slurm_sprint_job_step_info). An array task's steps are named by the task
// (`12_0.batch`), and `scontrol show step -o 12` lists the steps of every task whose array id is 12. A job with no
// live step (pending, ended) prints `Job step 42. not found` on stdout and exits 1: that is an empty list.

/** True for scontrol's "no steps" answer (exit 1), which is not an error. */
export function isNoStepsAnswer(output: string): boolean {
	return /^Job step \S+ not found\s*$/.test(output.trim());
}

/**
 * The steps of one job. `jobNames` are the names its steps' ids start with: its own id and, for an array task,
 * `ARRAY_TASK` (steps of other tasks of the same array are left out).
 */
export function parseScontrolSteps(output: string, jobNames: readonly string[]): SlurmStep[] {
	const steps: SlurmStep[] = [];
	for (const line of output.split('\n')) {
		const fields = scontrolFields(line);
		const id = fields.get('StepId');
		if (id === undefined) continue;
		const owner = id.slice(0, id.lastIndexOf('.'));
		if (!jobNames.includes(owner)) continue;
		const tasks = fields.get('Tasks') ?? '';
		// SrunHost:Pid=(null):0 for steps no srun launched (src/scontrol/info_job.c prints srun_host:srun_pid).
		const srun = /^(.+):(\d+)$/.exec(fields.get('SrunHost:Pid') ?? '');
		const srunPid = Number(srun?.[2] ?? 0);
		steps.push({
			id,
			name: fields.get('Name') ?? '',
			state: fields.get('State') ?? 'UNKNOWN',
			tasks: /^\d+$/.test(tasks) ? Number(tasks) : null,
			nodes: fields.get('NodeList') ?? '',
			srun: srun && srun[1] !== '(null)' && srunPid > 1 ? {host: srun[1]!, pid: srunPid} : null,
		});
	}
	return steps;
}
