import {saveTimes, savesNeverComplete} from '../checkpoints/save-duration.js';
import {launcherFacts} from '../ranks/launcher-traps.js';
import type {SchedulerJob, SchedulerState} from '../scheduler/types.js';
import type {CheckpointIndex} from './checkpoint-types.js';
import type {Job, RankSet} from './job-types.js';
import {judgeReadiness, type SignalPath} from './readiness.js';
import type {Readiness} from './readiness-types.js';
import {runDirJob} from './run-dir-job.js';

// Each job's readiness from what a snapshot holds: its ranks, the run dir's saves (for the run dir's job), the
// scheduler's deadline (for the scheduler's job) and the user's --grace and --max-work-at-risk.

export interface ReadinessOptions {
	/** --grace: seconds from the signal to the kill that the user knows of (a cloud's spot notice); null: not given. */
	readonly graceS: number | null;
	/** --max-work-at-risk: seconds of training the user accepts losing; null: twice the save cadence. */
	readonly maxWorkAtRiskS: number | null;
}

export const NO_READINESS_OPTIONS: ReadinessOptions = {graceS: null, maxWorkAtRiskS: null};

/** The emergency signal, when it is the default: what a preemption, a node's shutdown and a cloud's notice send. */
const TERMINATING = 'SIGTERM';

/** The scheduler's job this job's ranks run in; null: another, or none. */
function schedulerJobOf(job: Job, state: SchedulerState | null): SchedulerJob | null {
	const scheduled = state?.job ?? null;
	if (scheduled === null || job.task === null) return null;
	return job.task.scheduler === state?.kind && job.task.jobId === scheduled.id ? scheduled : null;
}

/**
 * How a preemption's signal reaches the job and how long it gets: the user's --grace first (they know their notice),
 * else the scheduler's warning (its signal and lead), else its kill wait after SIGTERM; else no lead known.
 */
function signalPath(scheduled: SchedulerJob | null, options: ReadinessOptions): SignalPath {
	const warning = scheduled?.deadline.warning ?? null;
	const shellTrap = warning?.shellTrap ?? null;
	if (options.graceS !== null)
		return {signal: TERMINATING, leadS: options.graceS, leadFrom: 'grace', target: 'tasks', shellTrap: null};
	if (warning !== null)
		return {
			signal: `SIG${warning.signal}`,
			leadS: warning.leadS,
			leadFrom: 'scheduler-warning',
			target: warning.target ?? 'tasks',
			shellTrap,
		};
	const grace = scheduled?.deadline.graceS ?? null;
	return {
		signal: TERMINATING,
		leadS: grace,
		leadFrom: grace === null ? null : 'kill-wait',
		target: 'tasks',
		shellTrap: null,
	};
}

/** The most work at risk the user accepts: --max-work-at-risk, else twice the cadence; null when neither is known. */
function workLimit(index: CheckpointIndex | null, options: ReadinessOptions): number | null {
	if (options.maxWorkAtRiskS !== null) return options.maxWorkAtRiskS;
	const every = index?.cadence?.everySeconds ?? null;
	return every === null ? null : 2 * every;
}

export function jobReadiness(
	job: Job,
	ranks: RankSet | null,
	index: CheckpointIndex | null,
	scheduler: SchedulerState | null,
	options: ReadinessOptions,
	now: number,
): Readiness {
	const own = runDirJob(ranks) === job.id ? index : null;
	return judgeReadiness({
		job,
		path: signalPath(schedulerJobOf(job, scheduler), options),
		launcher: launcherFacts(job),
		saves: saveTimes(own),
		lastSaveAt: own?.lastSave?.time ?? null,
		savesNeverComplete: savesNeverComplete(own),
		maxWorkAtRiskS: workLimit(own, options),
		now,
	});
}

/** Every job's readiness; `previous` is returned when nothing changed (the agent sends a slow part only then). */
export function readinessOfJobs(
	parts: {
		readonly ranks: RankSet | null;
		readonly checkpoints: CheckpointIndex | null;
		readonly scheduler: SchedulerState | null;
	},
	options: ReadinessOptions,
	now: number,
	previous: readonly Readiness[] | null,
): readonly Readiness[] {
	const jobs = parts.ranks?.jobs ?? [];
	// While the run dir's first scan runs, its job has no verdict yet rather than a "no save seen" that is not so.
	const scanning = parts.checkpoints?.scanning === true ? runDirJob(parts.ranks) : null;
	const next = jobs
		.filter(job => job.id !== scanning)
		.map(job => jobReadiness(job, parts.ranks, parts.checkpoints, parts.scheduler, options, now));
	const key = JSON.stringify(next);
	if (previous !== null && KEYS.get(previous) === key) return previous;
	KEYS.set(next, key);
	return next;
}

/** Each published array's text, so that a tick compares one new text, not two (the previous is made once). */
const KEYS = new WeakMap<readonly Readiness[], string>();
