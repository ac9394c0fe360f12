import {slurmScheduler} from '../slurm/scheduler.js';
import {noScheduler} from './none.js';
import type {RankSet} from '../core/job-types.js';
import type {SchedulerSignalRoute} from './signal-route.js';
import type {SchedulerEntry} from './entry.js';
import type {SchedulerSource} from './types.js';

// The schedulers traintop knows, in the order they are asked (the first whose environment or flag names a job wins).
// Adding one is its folder (src/<kind>/) and one line here; a test adds its own with registerScheduler.

const entries: SchedulerEntry[] = [
	slurmScheduler,
	// "none" last: it claims no job, so it never hides one.
	noScheduler,
];

export function schedulers(): readonly SchedulerEntry[] {
	return entries;
}

/** Adds a scheduler ahead of "none" (a test's fake one); returns its removal. */
export function registerScheduler(entry: SchedulerEntry): () => void {
	if (entries.some(one => one.kind === entry.kind)) throw new Error(`scheduler ${entry.kind} is already registered`);
	entries.splice(entries.length - 1, 0, entry);
	return () => {
		const at = entries.indexOf(entry);
		if (at >= 0) entries.splice(at, 1);
	};
}

export function schedulerEntry(kind: string): SchedulerEntry | null {
	return entries.find(one => one.kind === kind) ?? null;
}

/** A scheduler's key in the memory log (entry.ts `logKey`), with its kind and its name for the report's words. */
export interface SchedulerLogKey {
	readonly kind: string;
	readonly name: string;
	readonly key: string;
}

/** The memory log's scheduler keys, in the registry's order (read once, where a module is loaded). */
export function schedulerLogKeys(): SchedulerLogKey[] {
	return entries.flatMap(one => (one.logKey === undefined ? [] : [{kind: one.kind, name: one.name, key: one.logKey}]));
}

/** A job of a scheduler: its kind and its id there. */
export interface ScheduledJob {
	readonly kind: string;
	readonly jobId: string;
}

/** The scheduler job traintop itself runs inside (an allocation, a pod), or null. */
export function jobOfTraintop(env: NodeJS.ProcessEnv = process.env): ScheduledJob | null {
	for (const entry of entries) {
		const jobId = entry.jobOfTraintop(env);
		if (jobId !== null) return {kind: entry.kind, jobId};
	}
	return null;
}

/** Follows `job` through its scheduler; null when no scheduler of that kind is registered. */
export function followJob(job: ScheduledJob): SchedulerSource | null {
	return schedulerEntry(job.kind)?.follow(job.jobId) ?? null;
}

/** A job a signal is for, picked by its scheduler's route (scheduler/signal-route.ts). */
export interface PickedJob extends ScheduledJob {
	readonly pickedBy: string;
	readonly route: SchedulerSignalRoute;
}

/**
 * The scheduler job `traintop signal` is for: each scheduler with a route is asked in turn, with its own flag's value
 * (`flags.slurm`: --slurm-job) and --job. null: none claims one (the guarded local send picks the job).
 */
export function pickScheduledJob(
	set: RankSet,
	job: string | null,
	flags: Readonly<Record<string, string | null>>,
): PickedJob | null {
	for (const entry of entries) {
		const route = entry.signal;
		const picked = route?.pick(set, job, flags[entry.kind] ?? null);
		if (route && picked) return {kind: entry.kind, ...picked, route};
	}
	return null;
}
