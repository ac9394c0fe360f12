import type {SchedulerTask, SchedulerTasks} from './task.js';
import type {SchedulerState, SchedulerWireKey} from './types.js';

// The light part of a scheduler: what the ranks' discovery, the words and the agent protocol ask it. Apart from the
// entry (entry.ts), whose routes reach the signal plan and the transports, which read ranks and the protocol.

/** A scheduler's words about its tasks, for the generic views (its folder's views/ writes them). */
export interface SchedulerTaskWords {
	/** Why a signal that ends one task may end the whole step: its launcher's rule, as a clause. */
	readonly launcherEndsStep: string;
	/** The command that reaches every task of job `jobId` with `action` (jobId already made printable). */
	reachEveryTask(action: string, jobId: string): string;
}

/** A scheduler's key in `ranks --json` (a contract: its key stays its own) and what a rank's and a job's task write. */
export interface SchedulerTaskJson {
	readonly key: string;
	rank(task: SchedulerTask): Record<string, unknown>;
	/** A job's task, with what `controller` (its state, read once for --json; null: not read) says of its job. */
	job(task: SchedulerTask, controller: SchedulerState | null): Record<string, unknown>;
}

export interface SchedulerKind {
	/** The registry's key, and the prefix of its jobs' ids ('KIND' → 'KIND:42'). */
	readonly kind: string;
	/** Its name in words, as its views say it. */
	readonly name: string;
	/** Its tasks as ranks carry them; absent: it runs none (no scheduler). */
	readonly tasks?: SchedulerTasks;
	/** Its tasks in `ranks --json`; absent: not written. */
	readonly taskJson?: SchedulerTaskJson;
	/** Its words about its tasks; absent with tasks: the generic words. */
	readonly taskWords?: SchedulerTaskWords;
	/** Its own key for its state on the agent protocol from before the seam (scheduler/wire.ts); absent: none. */
	readonly wireKey?: SchedulerWireKey;
}
