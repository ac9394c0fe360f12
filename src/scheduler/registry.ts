import {slurmScheduler} from '../slurm/scheduler.js';
import {noScheduler} from './none.js';
import type {RankSet} from '../core/job-types.js';
import type {SchedulerSignalRoute} from './signal-route.js';
import type {SchedulerEntry} from './entry.js';
import type {SchedulerSource} from './types.js';
import type {ScheduledJob} from './task.js';
import {registerKind} from './kinds.js';

// The schedulers traintop knows, in the order they are asked (the first whose environment or flag names a job wins).
// Adding one is its folder (src/<kind>/), one line here and one in kinds.ts (its light part); a test adds its own
// with registerScheduler.

const entries: SchedulerEntry[] = [
	slurmScheduler,
	// "none" last: it claims no job, so it never hides one.
	noScheduler,
];

// No child traintop starts inherits a scheduler's rank variables (system/process-group.ts).

export function schedulers(): readonly SchedulerEntry[] {
	return entries;
}

/** Adds a scheduler ahead of "none" (a test's fake one); returns its removal. */
export function registerScheduler(entry: SchedulerEntry): () => void {
	if (entries.some(one => one.kind === entry.kind)) throw new Error(`scheduler ${entry.kind} is already registered`);
	entries.splice(entries.length - 1, 0, entry);
	const removeKind = registerKind(entry);
	return () => {
		const at = entries.indexOf(entry);
		if (at >= 0) entries.splice(at, 1);
		removeKind();
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

/** The scheduler whose job flag is given, and the flag's value as given; null: none is. */
export function jobFlagGiven(
	flags: Readonly<Record<string, unknown>>,
): {readonly entry: SchedulerEntry; readonly flag: string; readonly value: string} | null {
	for (const entry of entries) {
		const name = entry.jobFlag?.name;
		const value = name === undefined ? undefined : flags[name];
		if (name !== undefined && typeof value === 'string' && value !== '') return {entry, flag: name, value};
	}
	return null;
}

/** This node's name as the scheduler that runs it says it; undefined outside a scheduler that names nodes. */
export function schedulerNodeName(env: NodeJS.ProcessEnv = process.env): string | undefined {
	for (const entry of entries) {
		const name = entry.nodeName?.(env);
		if (name) return name;
	}
	return undefined;
}

/** The job a scheduler's own flag names; null when no scheduler's flag is given. */
export function flaggedJob(flags: Readonly<Record<string, unknown>>): ScheduledJob | null {
	for (const entry of entries) {
		const flag = entry.jobFlag;
		if (flag === undefined || flags[flag.name] === undefined) continue;
		const jobId = flag.jobOf(flags[flag.name], {});
		if (jobId !== null) return {kind: entry.kind, jobId};
	}
	return null;
}

/** The job to follow: the one a scheduler's flag names, else the one traintop runs inside as that flag takes it. */
export function selectedJob(
	flags: Readonly<Record<string, unknown>>,
	env: NodeJS.ProcessEnv = process.env,
): ScheduledJob | null {
	const flagged = flaggedJob(flags);
	if (flagged !== null) return flagged;
	for (const entry of entries) {
		const jobId = entry.jobFlag?.jobOf(undefined, env) ?? null;
		if (jobId !== null) return {kind: entry.kind, jobId};
	}
	return null;
}

/** A job a signal is for, picked by its scheduler's route (scheduler/signal-route.ts). */
export interface PickedJob extends ScheduledJob {
	readonly pickedBy: string;
	readonly route: SchedulerSignalRoute;
}

/**
 * The scheduler job `traintop signal` is for: each scheduler with a route is asked in turn, with its own flag's job
 * (`flagged`, when it is this scheduler's) and --job. null: none claims one (the guarded local send picks the job).
 */
export function pickScheduledJob(set: RankSet, job: string | null, flagged: ScheduledJob | null): PickedJob | null {
	for (const entry of entries) {
		const route = entry.signal;
		const picked = route?.pick(set, job, flagged?.kind === entry.kind ? flagged.jobId : null);
		if (route && picked) return {kind: entry.kind, ...picked, route};
	}
	return null;
}
