import type {SignalPlan, SchedulerPlanInput} from '../commands/signal-plan.js';
import type {RankSet} from '../core/job-types.js';
import type {FleetConnection} from '../fleet/fleet.js';
import type {AgentArgs} from '../fleet/transports.js';

// The parts of a scheduler that reach the job's tasks: `traintop signal`'s route to a job the scheduler runs, and the
// agents' transport onto its nodes. Each route keeps the gates of the guarded send (ARCHITECTURE.md's safety rules).

/** A refusal: why, and whether the scheduler did not know the job at all (then the local jobs are listed). */
export interface RouteRefusal {
	readonly refused: string;
	readonly unknownJob: boolean;
}

export interface SchedulerSignalRoute {
	/**
	 * The job a signal is for, when it is this scheduler's, and how it was named (its flag and the id, for the
	 * heading): its own job flag's value (`flag`), or --job when it names one of its jobs that no other local job
	 * answers to. null: not this scheduler's. Throws a UsageError for a malformed id.
	 */
	pick(
		set: RankSet,
		job: string | null,
		flag: string | null,
	): {readonly jobId: string; readonly pickedBy: string} | null;
	/** The route to the picked job's tasks (its plan), or why not. */
	plan(input: SchedulerPlanInput): Promise<SignalPlan | RouteRefusal>;
}

export interface SchedulerAgents {
	/** The running job's nodes, as each node names itself. */
	nodes(jobId: string): Promise<string[]>;
	/** One connection that starts an agent on each of `nodes`. */
	connection(jobId: string, nodes: readonly string[], agent: AgentArgs): FleetConnection;
}
