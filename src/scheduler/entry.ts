import type {SchedulerAgents, SchedulerSignalRoute} from './signal-route.js';
import type {SchedulerSource} from './types.js';

// A scheduler as the registry lists it: apart from the state types (types.ts), which the Snapshot carries, because
// its routes reach into the signal plan and the agents' transports, which themselves read snapshots.

/** One scheduler: its folder (src/<kind>/) builds it, and one line of scheduler/registry.ts lists it. */
export interface SchedulerEntry {
	/** The registry's key, and the prefix of its jobs' ids ('slurm' → 'slurm:42'). */
	readonly kind: string;
	/** Its name in words: 'SLURM'. */
	readonly name: string;
	/** The job traintop itself runs inside, from its environment (SLURM_JOB_ID); null: none of this scheduler's. */
	jobOfTraintop(env: NodeJS.ProcessEnv): string | null;
	/**
	 * Its key in the memory log (SLURM: 'slurm'): every record written says there the job it was written under, as
	 * `{job_id, restart_count}` from the neutral SchedulerJob (memlog/record.ts), or null; absent: the log has none.
	 */
	readonly logKey?: string;
	/** Follows job `jobId` on the scheduler's own cadence for a Monitor. */
	follow(jobId: string): SchedulerSource;
	/** Its signal route (scancel, srun), for `traintop signal`; absent: the guarded local send only. */
	readonly signal?: SchedulerSignalRoute;
	/** How to start one agent per node of a job (srun --overlap); absent: agents by --hosts or --cluster only. */
	readonly agents?: SchedulerAgents;
}
