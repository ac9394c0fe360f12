import type {ExitStatus} from '../core/job-types.js';
import type {ShellTrapKind} from '../core/readiness-types.js';

// The job as SLURM's controller sees it: what src/slurm/ reads from squeue/scontrol, and what the job pane, the
// headless lines and --json show. Times are epoch milliseconds, durations seconds; null means SLURM did not say.

/** One step of the job: `42.0` (an srun), `42.batch` (the batch shell), `42.extern` (the extern step). */
export interface SlurmStep {
	readonly id: string;
	readonly name: string;
	/** RUNNING, COMPLETING…; squeue -s lists live steps only. */
	readonly state: string;
	readonly tasks: number | null;
	readonly nodes: string;
	/** Where the step's srun runs and its pid there (`SrunHost:Pid=vm:7500`); null for the batch/extern steps. */
	readonly srun: {readonly host: string; readonly pid: number} | null;
}

/** The job's `--signal=[{R|B}:]SIG[@TIME]`: SIG goes to the job `leadS` seconds before its time limit. */
export interface SlurmWarning {
	/** Without the SIG prefix, as sbatch spells it: 'USR1', 'TERM'. */
	readonly signal: string;
	readonly leadS: number;
	/** `B:`: the batch shell only, not the steps' tasks (sbatch(1)). */
	readonly batchOnly: boolean;
	/** Where it was read: 'batch script'. */
	readonly from: string;
	/** What the batch script's trap for this signal does ('none': it sets none); absent: not read. */
	readonly shellTrap?: ShellTrapKind;
}

export interface SlurmJob {
	/** The job's own id ('43'; for an array task its own id, not `42_1`). */
	readonly jobId: string;
	/** For an array task: the array's id ('42'); else null. */
	readonly arrayJobId: string | null;
	/** For an array task: its index ('1'); a pending array's unsplit remainder shows its range ('1-3'). */
	readonly arrayTaskId: string | null;
	readonly name: string;
	readonly user: string;
	readonly partition: string;
	/** RUNNING, PENDING, COMPLETED, FAILED, CANCELLED, TIMEOUT, PREEMPTED, REQUEUED… */
	readonly state: string;
	/** Why it pends (Resources, Priority, BeginTime…); null when there is none ('None'). */
	readonly reason: string | null;
	/** The allocated node list ('node[01-04]'); '' while pending. */
	readonly nodes: string;
	readonly batchHost: string | null;
	/** Where the job was submitted from and runs in (sbatch --chdir); null when SLURM does not say. */
	readonly workDir: string | null;
	readonly submitTime: number | null;
	readonly startTime: number | null;
	/** For a running job: when its time limit ends it. */
	readonly endTime: number | null;
	readonly elapsedS: number | null;
	/** null = UNLIMITED. */
	readonly timeLimitS: number | null;
	/** Time limit minus elapsed for a running job; null when unlimited or not running. */
	readonly timeLeftS: number | null;
	/** How many times the job was requeued (scontrol requeue, preemption, node failure). */
	readonly restarts: number;
	/** Whether SLURM may requeue it (`--requeue`, or JobRequeue=1 in slurm.conf). */
	readonly requeue: boolean;
	/** Tasks of the job (NumTasks); null when SLURM does not say. Added beyond the brief for the pane. */
	readonly tasks: number | null;
	/**
	 * How an ended job (COMPLETED, FAILED, TIMEOUT…) ended, from SLURM's ExitCode: the batch script's exit code, or
	 * the signal that killed it. null while it has not ended. Its ranks' own exits are often unreadable (slurmstepd
	 * reaps them), so this is where "exit 99" comes from for a SLURM job. Added in issue 26.
	 */
	readonly exit: ExitStatus | null;
	readonly warning: SlurmWarning | null;
	/**
	 * slurm.conf's KillWait: seconds from the SIGTERM of a time limit or a preemption to the SIGKILL (slurm.conf(5));
	 * null: not read. Absent from readers older than this field.
	 */
	readonly killWaitS?: number | null;
	/** Why the warning signal cannot be known (null when it is known, or known to be absent). */
	readonly warningUnknown: string | null;
	readonly steps: readonly SlurmStep[];
}

export type SlurmView =
	| {readonly status: 'ok'; readonly job: SlurmJob; readonly readAt: number}
	| {readonly status: 'unavailable'; readonly reason: string; readonly readAt: number; readonly last: SlurmJob | null}
	| {readonly status: 'not-found'; readonly jobId: string; readonly readAt: number};
