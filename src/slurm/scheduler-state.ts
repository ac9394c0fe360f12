import type {SchedulerJob, SchedulerState} from '../scheduler/types.js';
import {isEndedState} from './slurm-values.js';
import type {SlurmJob, SlurmView} from './types.js';

// SLURM's answer in the scheduler's neutral terms (scheduler/types.ts), with the whole SlurmView kept as its detail
// for SLURM's own views (the job pane, the headless slurm report, the log's slurm key).

export const SLURM_KIND = 'slurm';

function phase(state: string): SchedulerJob['phase'] {
	if (state === 'RUNNING') return 'running';
	return isEndedState(state) ? 'ended' : 'pending';
}

/** SLURM's job in neutral terms: the warning is --signal's (B: sends it to the batch shell alone), grace KillWait. */
export function schedulerJobOf(job: SlurmJob): SchedulerJob {
	return {
		id: job.jobId,
		eventJob: `${SLURM_KIND}:${job.jobId}`,
		state: job.state,
		phase: phase(job.state),
		startTime: job.startTime,
		// A requeue or a preemption keeps the job's id and adds one (src/slurmctld/job_mgr.c: job_ptr->restart_cnt++; on
		// SLURM 22.05 `scontrol requeue` took `scontrol show job` from Restarts=0 to Restarts=1, `squeue --json`
		// restart_cnt likewise): the log's requeues (memlog/analyze.ts) are read from it.
		restarts: job.restarts,
		requeueable: job.requeue,
		exit: job.exit ?? null,
		deadline: {
			timeLeftS: job.state === 'RUNNING' ? job.timeLeftS : null,
			warning:
				job.warning === null
					? null
					: {
							signal: job.warning.signal,
							leadS: job.warning.leadS,
							target: job.warning.batchOnly ? 'batch-shell' : 'tasks',
							shellTrap: job.warning.shellTrap ?? null,
						},
			graceS: job.killWaitS ?? null,
		},
	};
}

/** `jobId`: the job asked about, for an answer that does not name it (the controller did not answer). */
export function slurmState(view: SlurmView, jobId = ''): SchedulerState {
	const base = {kind: SLURM_KIND, name: 'SLURM', readAt: view.readAt, detail: view};
	if (view.status === 'ok')
		return {...base, status: 'ok', jobId: view.job.jobId, job: schedulerJobOf(view.job), reason: null};
	if (view.status === 'not-found') return {...base, status: 'not-found', jobId: view.jobId, job: null, reason: null};
	const last = view.last === null ? null : schedulerJobOf(view.last);
	return {...base, status: 'unavailable', jobId: view.last?.jobId ?? jobId, job: last, reason: view.reason};
}

/** The SLURM view a snapshot carries, for SLURM's own views; null when its scheduler is another (or none). */
export function slurmViewOf(state: SchedulerState | null | undefined): SlurmView | null {
	return state?.kind === SLURM_KIND ? ((state.detail as SlurmView | undefined) ?? null) : null;
}
