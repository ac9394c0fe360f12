import {slurmKind} from '../slurm/kind.js';
import type {SchedulerKind, SchedulerTaskWords} from './kind.js';
import type {SchedulerTask, SchedulerTasks} from './task.js';
import type {SchedulerWireKey} from './types.js';

// The schedulers' light parts (kind.ts), in the registry's order: the ranks' discovery, their words, `ranks --json`
// and the agent protocol ask these. Listed apart from the registry (registry.ts), whose entries reach the signal plan
// and the transports, which read ranks and the protocol; registerScheduler adds an entry's light part here too.

/** A scheduler that runs tasks: its task hooks, its kind and its name. */
export type TaskScheduler = SchedulerTasks & {
	readonly kind: string;
	readonly name: string;
	readonly words: SchedulerTaskWords | null;
};

const kinds: SchedulerKind[] = [slurmKind];
// Asked for every process of every scan: built once per change of the list, not per call.
let withTasks: readonly TaskScheduler[] = tasksIn(kinds);
// Asked for every snapshot sent or received.
let wireKeys = wireKeysIn(kinds);

function wireKeysIn(list: readonly SchedulerKind[]): ReadonlyMap<string, SchedulerWireKey> {
	return new Map(list.flatMap(one => (one.wireKey ? [[one.kind, one.wireKey] as const] : [])));
}

function tasksIn(list: readonly SchedulerKind[]): TaskScheduler[] {
	return list.flatMap(one =>
		one.tasks ? [{...one.tasks, kind: one.kind, name: one.name, words: one.taskWords ?? null}] : [],
	);
}

export function schedulerKinds(): readonly SchedulerKind[] {
	return kinds;
}

/** Adds a scheduler's light part (registry.ts's registerScheduler does); returns its removal. */
export function registerKind(kind: SchedulerKind): () => void {
	kinds.push(kind);
	withTasks = tasksIn(kinds);
	wireKeys = wireKeysIn(kinds);
	return () => {
		const at = kinds.indexOf(kind);
		if (at >= 0) kinds.splice(at, 1);
		withTasks = tasksIn(kinds);
		wireKeys = wireKeysIn(kinds);
	};
}

/** The schedulers' own keys for their state on the agent protocol from before the seam, by kind (scheduler/wire.ts). */
export function stateWireKeys(): ReadonlyMap<string, SchedulerWireKey> {
	return wireKeys;
}

/** The schedulers that run tasks. */
export function taskSchedulers(): readonly TaskScheduler[] {
	return withTasks;
}

/** The scheduler of a task; null when that scheduler is not registered (any more). */
export function schedulerOf(task: Pick<SchedulerTask, 'scheduler'>): TaskScheduler | null {
	return withTasks.find(one => one.kind === task.scheduler) ?? null;
}

/** The task a process's environment names, by the first scheduler that knows it; null: none does. */
export function taskFromEnv(env: ReadonlyMap<string, string>): SchedulerTask | null {
	for (const one of withTasks) {
		const task = one.fromEnv(env);
		if (task !== null) return task;
	}
	return null;
}
