import type {OptionWords, SchedulerOption} from '../config/option-spec.js';
import type {SchedulerAgents, SchedulerSignalRoute} from './signal-route.js';
import type {SchedulerKind} from './kind.js';
import type {JobWarning, SchedulerSource, SchedulerState} from './types.js';
import type {SchedulerView} from './view.js';

/** What preflight reads in a batch script of a scheduler's: the warning it asks for, or the line that is wrong. */
export type BatchScriptReading =
	| {
			readonly status: 'read';
			readonly warning: JobWarning | null;
			/** The directive that asks for the warning, as written, and its line (1-based); null: none. */
			readonly directive: {readonly text: string; readonly line: number} | null;
	  }
	| {readonly status: 'invalid'; readonly line: number; readonly reason: string};

// A scheduler as the registry lists it: apart from the state types (types.ts), which the Snapshot carries, because
// its routes reach into the signal plan and the agents' transports, which themselves read snapshots.

/** One scheduler: its folder (src/<kind>/) builds it, and one line in each of scheduler/registry.ts and kinds.ts lists it. */
export interface SchedulerEntry extends SchedulerKind {
	/** The job traintop itself runs inside, from its environment (its job id variable); null: none of this scheduler's. */
	jobOfTraintop(env: NodeJS.ProcessEnv): string | null;
	/** One read of job `jobId`, for a one-shot command (`ranks --json`); absent: it has no controller to ask. */
	readOnce?(jobId: string): Promise<SchedulerState>;
	/**
	 * Its key in the memory log: every record written says there the job it was written under, as
	 * `{job_id, restart_count}` from the neutral SchedulerJob (memlog/record.ts), or null; absent: the log has none.
	 */
	readonly logKey?: string;
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
	/**
	 * Preflight (`--batch-script`): the warning signal the script asks this scheduler for, its target and the batch
	 * shell's trap for it (`warning` null: none asked, so the scheduler's plain SIGTERM and kill wait); null: the
	 * script holds none of this scheduler's directives.
	 */
	readBatchScript?(script: string): BatchScriptReading | null;
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
