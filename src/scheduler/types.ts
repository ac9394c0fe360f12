import type {ExitStatus, JobEvent, RankSet} from '../core/job-types.js';
import type {ShellTrapKind} from '../core/readiness-types.js';

// A scheduler (a batch scheduler, "none", later Kubernetes) as traintop sees it: the job it runs, when it will end that job and
// what it says before, how often it requeued it, and how to reach the job's tasks. The Snapshot and the judgements
// carry these neutral facts; each scheduler keeps its own detail for its own views (src/<scheduler>/).

/** When the scheduler ends the job and what it says before. Seconds; null: the scheduler does not say. */
export interface JobDeadline {
	/** Seconds until the scheduler ends the job (its time limit); null: no limit, or the job is not running. */
	readonly timeLeftS: number | null;
	/** The signal sent ahead of the end (without SIG: 'USR1') and how long ahead; null: none, or not known. */
	readonly warning: JobWarning | null;
	/** Seconds from the terminating signal to the kill (KillWait, terminationGracePeriodSeconds); null: not known. */
	readonly graceS: number | null;
}

/** The signal a scheduler sends ahead of the end, and where it goes. */
export interface JobWarning {
	readonly signal: string;
	readonly leadS: number;
	/** tasks: the job's tasks (absent: so); batch-shell: the batch shell alone (SLURM's `B:`). */
	readonly target?: 'tasks' | 'batch-shell';
	/** What the batch shell's trap for the signal does; absent or null: no batch script read. */
	readonly shellTrap?: ShellTrapKind | null;
}

/** The job as its scheduler sees it, in the terms every judgement shares. */
export interface SchedulerJob {
	/** The scheduler's own id for the job ('42'). */
	readonly id: string;
	/** The job id its events carry (`<kind>:42`); a rank's job id of this job starts with it and a dot (`<kind>:42.0`). */
	readonly eventJob: string;
	/** The scheduler's own word for the state ('RUNNING', 'TIMEOUT'). */
	readonly state: string;
	readonly phase: 'pending' | 'running' | 'ended';
	/** Epoch ms the current run started; null while pending or not said. */
	readonly startTime: number | null;
	/** How many times the scheduler requeued (restarted) the job. */
	readonly restarts: number;
	readonly requeueable: boolean;
	/** How an ended job ended; null while it has not. */
	readonly exit: ExitStatus | null;
	readonly deadline: JobDeadline;
}

/** What the scheduler said last about the job: a new object only when it said something new (views memoise on it). */
export interface SchedulerState {
	/** The registry's key (its entry's `kind`). */
	readonly kind: string;
	/** The scheduler's name, as the words say it (its entry's `name`). */
	readonly name: string;
	/** ok: it answered; unavailable: it did not (job: the last answer); not-found: it does not know the job. */
	readonly status: 'ok' | 'unavailable' | 'not-found';
	/** The job's id as asked for. */
	readonly jobId: string;
	/** Epoch ms of the answer (or of the failed try). */
	readonly readAt: number;
	readonly job: SchedulerJob | null;
	/** Why it did not answer (unavailable); else null. */
	readonly reason: string | null;
	/** The scheduler's own reading, for its own views only (its own folder's type); generic code never reads it. */
	readonly detail?: unknown;
}

/** Events a scheduler holds or adds (a step's end completed with the controller's exit). */
export interface JobEndWatch {
	update(
		events: readonly JobEvent[],
		state: SchedulerState | null,
		time: number,
		ranks: RankSet | null,
	): {readonly events: JobEvent[]; readonly readNow: boolean};
}

/** The job followed on the scheduler's own cadence (never per tick: a controller is shared); a Monitor source. */
export interface SchedulerSource {
	current(): SchedulerState;
	/** A new answer is published at once (an extra tick). */
	onChange?(listener: () => void): () => void;
	/** A read now, out of turn: a step ended and its exit is wanted. */
	refresh?(): unknown;
	start?(): void;
	stop?(): void;
	/** The scheduler's own event rules; absent: none. */
	readonly endWatch?: JobEndWatch;
}

/**
 * A scheduler's key on the agent protocol from before the scheduler seam (its own view under its own key): its detail
 * is sent there as it was, so a reader of that key keeps reading it; `scheduler` carries the neutral part.
 */
export interface SchedulerWireKey {
	readonly key: string;
	/** The state as a new reader rebuilds it from the neutral part and the key's value (or an older agent's key alone). */
	fromWire(value: unknown, neutral: SchedulerState | null): SchedulerState | null;
}
