import type {SchedulerTask} from '../scheduler/task.js';
import type {Level} from './level.js';

// The job and its ranks as discovery finds them (ranks/), and the events of its life (core/job-events.ts):
// part of the Snapshot, kept here so that types.ts stays the index of the shapes. Re-exported by types.ts.

/** What a process does with one signal, read from /proc/PID/status (see ranks/dispositions.ts). */
export interface SignalState {
	/** handled: a handler is installed (SigCgt); ignored: SIG_IGN (SigIgn); default: neither. */
	readonly disposition: 'handled' | 'ignored' | 'default';
	/** Blocked by the main thread (SigBlk): delivery waits until it is unblocked. */
	readonly blocked: boolean;
	/** Sent but not yet delivered (SigPnd or ShdPnd). */
	readonly pending: boolean;
	/** The default action ends the process: with the `default` disposition, sending it kills. */
	readonly terminatesByDefault: boolean;
}

/** One rank of the training job: the topmost process carrying that rank. */
export interface RankProcess {
	/** Global rank (RANK, else the scheduler's task index, else LOCAL_RANK); null for a --match process without one. */
	readonly rank: number | null;
	readonly localRank: number | null;
	readonly worldSize: number | null;
	readonly pid: number;
	readonly ppid: number;
	/** /proc/PID/stat field 22 (clock ticks after boot): with the pid, the identity checked before any signal. */
	readonly startTime: number;
	/** Epoch ms the process started. */
	readonly startedAt: number;
	readonly host: string;
	readonly cmd: string;
	/** /proc state letter: R, S, D, Z, T… */
	readonly state: string;
	/** Of one core, since the previous sample; null on the first. */
	readonly cpuPercent: number | null;
	readonly rssBytes: number | null;
	/** Rank and its workers on all GPUs; null when per-process GPU memory is unknown. */
	readonly gpuMemoryBytes: number | null;
	readonly signals: Readonly<Record<string, SignalState>>;
	/** Descendants carrying the same rank (DataLoader workers), by pid. */
	readonly workers: readonly number[];
	/** Its task of a scheduler's job (scheduler/task.ts), only where its step is proven (ranks/job-proof.ts). */
	readonly task: SchedulerTask | null;
	/** Running or sleeping, yet no CPU time for the stall window: hung in a collective, deadlocked… */
	readonly stalled: boolean;
	/** State T or t: stopped by SIGSTOP/SIGTSTP or held by a debugger. */
	readonly stopped: boolean;
	/** The id of the job it belongs to (Job.id). */
	readonly job: string;
}

export interface LauncherProcess {
	readonly pid: number;
	readonly startTime: number;
	readonly cmd: string;
	/** Its own signal state, read from /proc/PID/status as a rank's; absent where not read (older senders, tests). */
	readonly signals?: Readonly<Record<string, SignalState>>;
	/**
	 * The variables of its environment that its code reads for what it does with a signal (ranks/launcher-traps.ts
	 * names them), those set; absent where not read.
	 */
	readonly variables?: Readonly<Record<string, string>>;
	/** Of `variables`, those its installed code reads (ranks/launcher-code.ts); absent where not read. */
	readonly reads?: readonly string[];
}

/**
 * What made a set of ranks one job, strongest first: the torchrun/elastic agent (TORCHELASTIC_RUN_ID and the
 * agent's pid), a scheduler's job and step (Job.task says which scheduler), the rendezvous address
 * (MASTER_ADDR:MASTER_PORT), the nearest common launcher ancestor, or nothing (a lone rank is a job of its own).
 * The JSON and the agent protocol write 'scheduler' as the scheduler's kind (its registry key).
 */
export type JobIdentityKind = 'elastic' | 'scheduler' | 'rendezvous' | 'launcher' | 'process';

/**
 * Why a process whose environment names a job is not counted as one of its ranks (ranks/jobs.ts): only what a
 * stranger cannot set proves membership — the launcher's process tree, the scheduler step's daemon or cgroup.
 *   env-only: it shares no launcher, step or shell session with the job's ranks; only its variables name the job;
 *   orphan: its parent is PID 1 (its launcher is gone, or it was started detached), so nothing ties it to the job;
 *   not-in-step: it names a scheduler's job J step S, but is neither under that step's daemon nor in its cgroup.
 */
export type UnprovenReason = 'env-only' | 'orphan' | 'not-in-step';

/** A process that claims to be a rank of a job without proof: listed apart, never a rank, never a signal target. */
export interface UnprovenMember {
	readonly pid: number;
	readonly ppid: number;
	/** The rank its environment claims (RANK, the scheduler's task index, LOCAL_RANK); null when none. */
	readonly rank: number | null;
	readonly cmd: string;
	readonly membership: {readonly proven: false; readonly reason: UnprovenReason};
}

/**
 * What proves a job's ranks belong together: the launcher's process tree (the elastic agent or another launcher
 * they descend from), a scheduler's step (its daemon above them, or its cgroup), one shell session that started
 * them all, or nothing to prove (a single process is a job of its own). The JSON and the agent protocol write
 * 'scheduler-step' as the scheduler's kind and '-step'.
 */
export type MembershipProof = 'launcher-tree' | 'scheduler-step' | 'shell-session' | 'single-process';

/** One training job: the unit a signal goes to. */
export interface Job {
	/** Short and stable while the job runs: `torchrun:4242`, `KIND:998.0` (a scheduler's job.step), `rdzv:10.0.0.1:29500`, `deepspeed:77`, `pid:501`. */
	readonly id: string;
	readonly identity: JobIdentityKind;
	readonly launcher: LauncherProcess | null;
	/** Ordered by rank. */
	readonly ranks: readonly RankProcess[];
	/** WORLD_SIZE (or the scheduler's task count) as the ranks declare it; null when none does. */
	readonly worldSize: number | null;
	/** Ranks expected on this host (LOCAL_WORLD_SIZE, the scheduler's tasks per node); null when unknown. */
	readonly localWorldSize: number | null;
	/** Every local rank the job declares is present (true when nothing is declared). */
	readonly allLocalRanksPresent: boolean;
	/** The RUN_DIR traintop was given, when this job is the one it names; null otherwise. */
	readonly runDir: string | null;
	/** Its first rank's working directory (where its relative paths point), read at the last full scan. */
	readonly cwd: string | null;
	/** Its scheduler's task ids as its first rank carries them; null: not a scheduler's proven step. */
	readonly task: SchedulerTask | null;
	/** How its ranks are proven to be this job (absent from senders older than this field: treat as unknown). */
	readonly provenBy?: MembershipProof;
	/**
	 * Processes whose environment names this job but whose membership is not proven: shown apart, never ranks, never
	 * signalled by any route. Absent or empty: none.
	 */
	readonly unproven?: readonly UnprovenMember[];
}

/** How a process ended, read from a zombie's /proc/PID/stat field 52 (its wait status); null fields unknown. */
export interface ExitStatus {
	/** exit(2) code, when it exited. */
	readonly code: number | null;
	/** The signal that killed it (SIGKILL…), when one did. */
	readonly signal: string | null;
}

/** A rank or launcher seen at the previous sample and gone (or a zombie) at this one. */
export interface DepartedProcess {
	readonly role: 'rank' | 'launcher';
	readonly job: string;
	readonly rank: number | null;
	readonly pid: number;
	/** null: it was reaped before traintop could read how it ended ("gone"). */
	readonly exit: ExitStatus | null;
}

/** A job none of whose ranks is left. */
export interface EndedJob {
	readonly id: string;
	readonly launcher: LauncherProcess | null;
	readonly ranks: number;
	readonly runDir: string | null;
	/** Epoch ms of the sample that found it gone. */
	readonly endedAt: number;
	/** The launcher's exit when read, else rank 0's (or the only rank's); null when unknown. */
	readonly exit: ExitStatus | null;
}

export interface RankSet {
	/** Every rank of every job, job by job (the order of `jobs`), each job's by rank. */
	readonly ranks: readonly RankProcess[];
	readonly jobs: readonly Job[];
	/** The launcher when there is exactly one job (else each job has its own); null otherwise. */
	readonly launcher: LauncherProcess | null;
	/** Ranks and launchers that left since the previous sample. */
	readonly departed: readonly DepartedProcess[];
	/** Jobs that ended while traintop watched, newest last (bounded). */
	readonly ended: readonly EndedJob[];
	/**
	 * With a RUN_DIR: the jobs that name it at the strongest level found (one = its job; several = ambiguous,
	 * nothing is chosen) and that level. null without a RUN_DIR.
	 */
	readonly runDirMatch: {readonly jobs: readonly string[]; readonly evidence: string | null} | null;
	/**
	 * Where ranks were looked for, in words, for a view with none to show ("process 4242 and its descendants";
	 * "process 4242 is not running: …" once a --pid has exited). Absent: the views' default words.
	 */
	readonly search?: string;
	/** Epoch ms of the scan. */
	readonly sampledAt: number;
}

export type JobEventKind =
	| 'rank-exited'
	| 'rank-stopped'
	| 'rank-stalled'
	| 'rank-resumed'
	| 'job-stalled'
	| 'job-resumed'
	/** The job's progress verdict became stalled or hung (core/progress.ts), with the odd rank out in its text. */
	| 'job-hung'
	/** A stalled or hung job progresses again. */
	| 'job-progressing'
	| 'job-ended'
	| 'save-seen'
	| 'overdue'
	/** The run dir was deleted, or deleted and made again, while watched (checkpoints/watch.ts). */
	| 'run-dir-replaced'
	/** The run dir cannot be read (EACCES), or can be again (checkpoints/watch.ts). */
	| 'run-dir-access'
	| 'requeued'
	| 'resumed'
	| 'node-link'
	/** A node differs from its cluster.yaml declaration, or agrees again (cluster/declared-watch.ts). */
	| 'node-declared'
	/** A GPU's health problem (throttling, ECC errors, remapped rows) began or ended (core/gpu-health-judge.ts). */
	| 'gpu-health'
	/** A rank's or DataLoader worker's RSS floor grows steadily: a leak (core/memory-events.ts). */
	| 'memory-growing'
	/** A process named growing is steady again. */
	| 'memory-steady';

/** Something that happened to a job: shown in the alerts pane, printed by the headless view, in --json. */
export interface JobEvent {
	/** Epoch ms. */
	readonly time: number;
	readonly kind: JobEventKind;
	/** Job.id; null when the event is not tied to a known job (a checkpoint in RUN_DIR with no job found). */
	readonly job: string | null;
	readonly rank: number | null;
	readonly pid: number | null;
	readonly level: Level;
	/** One line for people: "rank 2 (pid 4242) stopped (SIGSTOP or a debugger)". */
	readonly text: string;
	readonly exit?: ExitStatus | null;
	/** The checkpoint's name for save-seen and overdue; for requeued the newest on disk, for resumed the one resumed from. */
	readonly checkpoint?: string;
	/** memory-growing and memory-steady: the process's role, its rate, and when the job reaches its RAM line. */
	readonly growth?: MemoryGrowth;
	/** gpu-health: the device's index, as nvidia-smi numbers it (its episode is that GPU's). */
	readonly gpu?: number;
	/** node-link: the node whose agent link changed. */
	readonly node?: string;
}

export interface MemoryGrowth {
	readonly role: 'rank' | 'worker';
	/** The process's robust slope, bytes per minute; null when unknown. */
	readonly bytesPerMin: number | null;
	/** At the job's summed growth, when the RAM metric reaches its critical line (JobMemory.reachesThresholdAt). */
	readonly reachesThresholdAt: number | null;
}
