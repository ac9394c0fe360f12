import type {SchedulerAgents, SchedulerSignalRoute} from './signal-route.js';
import type {SchedulerKind} from './kind.js';
import type {SchedulerSource, SchedulerState} from './types.js';

// A scheduler as the registry lists it: apart from the state types (types.ts), which the Snapshot carries, because
// its routes reach into the signal plan and the agents' transports, which themselves read snapshots.

/** One scheduler: its folder (src/<kind>/) builds it, and one line of scheduler/registry.ts lists it. */
export interface SchedulerEntry extends SchedulerKind {
	/** The job traintop itself runs inside, from its environment (SLURM_JOB_ID); null: none of this scheduler's. */
	jobOfTraintop(env: NodeJS.ProcessEnv): string | null;
	/** One read of job `jobId`, for a one-shot command (`ranks --json`); absent: it has no controller to ask. */
	readOnce?(jobId: string): Promise<SchedulerState>;
	/** Follows job `jobId` on the scheduler's own cadence for a Monitor. */
	follow(jobId: string): SchedulerSource;
	/** Its signal route (scancel, srun), for `traintop signal`; absent: the guarded local send only. */
	readonly signal?: SchedulerSignalRoute;
	/** How to start one agent per node of a job (srun --overlap); absent: agents by --hosts or --cluster only. */
	readonly agents?: SchedulerAgents;
}
