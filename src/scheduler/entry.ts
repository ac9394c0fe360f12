import type {OptionWords, SchedulerOption} from '../config/option-spec.js';
import type {SchedulerAgents, SchedulerSignalRoute} from './signal-route.js';
import type {SchedulerSource} from './types.js';
import type {SchedulerView} from './view.js';

// A scheduler as the registry lists it: apart from the state types (types.ts), which the Snapshot carries, because
// its routes reach into the signal plan and the agents' transports, which themselves read snapshots.

/** One scheduler: its folder (src/<kind>/) builds it, and one line of scheduler/registry.ts lists it. */
export interface SchedulerEntry {
	/** The registry's key, and the prefix of its jobs' ids (`<kind>:42`). */
	readonly kind: string;
	/** Its name in words, as the views say it. */
	readonly name: string;
	/** The job traintop itself runs inside, from its environment (its job id variable); null: none of this scheduler's. */
	jobOfTraintop(env: NodeJS.ProcessEnv): string | null;
	/**
	 * Its key in the memory log: every record written says there the job it was written under, as
	 * `{job_id, restart_count}` from the neutral SchedulerJob (memlog/record.ts), or null; absent: the log has none.
	 */
	readonly logKey?: string;
	/**
	 * The variables its tasks carry their rank in, the global rank's first (help names it beside RANK and LOCAL_RANK);
	 * no child traintop starts inherits them (system/process-group.ts).
	 */
	readonly rankVariables?: readonly string[];
	/** Its own command-line options (its job flag among them), in every help and the docs' options table. */
	readonly options?: readonly SchedulerOption[];
	/** Its words in generic options' help, by option name (its job id forms in --job's); absent: the neutral words. */
	readonly optionWords?: Readonly<Record<string, OptionWords>>;
	/**
	 * Its job flag (one of `options`, by name), and the job it names: `value` as parsed, or undefined when the flag is
	 * not given (then the job traintop runs inside, as the flag would take it, or null). Throws a UsageError for a
	 * malformed id.
	 */
	readonly jobFlag?: {readonly name: string; jobOf(value: unknown, env: NodeJS.ProcessEnv): string | null};
	/** Its name for the node this runs on (an agent it starts on every node is addressed by it); undefined: none. */
	nodeName?(env: NodeJS.ProcessEnv): string | undefined;
	/** The job's working directory (`traintop checkpoints` with the job flag and no RUN_DIR); a UsageError if unknown. */
	workDir?(jobId: string): Promise<string>;
	/** Preflight's advice on having it send `warning` (without SIG) to the ranks before the end; absent: none. */
	signalAdvice?(warning: string): string;
	/** How its job is shown: the job pane's lines, the headless news; absent: the job is not shown. */
	readonly view?: SchedulerView;
	/** Follows job `jobId` on the scheduler's own cadence for a Monitor. */
	follow(jobId: string): SchedulerSource;
	/** Its signal route (scancel, srun), for `traintop signal`; absent: the guarded local send only. */
	readonly signal?: SchedulerSignalRoute;
	/** How to start one agent per node of a job (srun --overlap); absent: agents by --hosts or --cluster only. */
	readonly agents?: SchedulerAgents;
}
