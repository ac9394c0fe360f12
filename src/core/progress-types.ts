import type {ExitStatus} from './job-types.js';

// Is the job making progress? Per job, as codes and figures (core/progress.ts judges it, format/progress.ts words
// it), read without the job's help: each rank's CPU time and kernel wait channel (/proc), the steps the job writes
// to its files, its GPUs' utilisation and power. Carried in the Snapshot, `ranks --json` (`jobs[].progress`),
// headless `{"event":"progress"}` and the agent stream.

/**
 * - `progressing`: a progress signal moved within the window.
 * - `stalled`: none moved for the window (`--hang-after`, at least 3 × the step time seen), and no rank stands out.
 * - `hung`: stalled with an odd rank out while the others wait in a collective, a rank stopped or gone while its
 *   peers wait for it, or the ranks' GPUs spinning at full utilisation and idle power.
 * - `unknown`: not enough read yet (the first samples; a job whose ranks were never seen compute).
 */
export type ProgressVerdict = 'progressing' | 'stalled' | 'hung' | 'unknown';

/**
 * What one process of the job is doing, as the kernel shows it at a sample:
 * - `computing`: its CPU time advanced since the previous sample;
 * - `waiting`: asleep, no CPU, in a wait a collective blocks in (a futex or epoll wait: gloo's and NCCL's
 *   condition waits, the blocking CUDA synchronise);
 * - `sleeping`: asleep, no CPU, anywhere else (a nanosleep, a pipe or socket read, a DataLoader queue);
 * - `disk`: in uninterruptible sleep (D: I/O);
 * - `stopped`: T or t (SIGSTOP, a debugger);
 * - `zombie`: exited, not reaped;
 * - `gone`: no longer there while its peers are.
 */
export type ProcessActivity = 'computing' | 'waiting' | 'sleeping' | 'disk' | 'stopped' | 'zombie' | 'gone';

/** A DataLoader worker of a waiting rank, as ranks/rank-waits.ts reads it. */
export interface ProcessWait {
	readonly pid: number;
	/** /proc state letter. */
	readonly state: string;
	readonly wchan: string | null;
	/** Percent of one core since it was last read; null the first time. */
	readonly cpuPercent: number | null;
}

/**
 * Where each rank that was not computing at the last scan waits, by pid: its main thread's wait channel and its
 * workers'. A rank absent from the map was computing (nothing was read).
 */
export type RankWaits = ReadonlyMap<number, {readonly wchan: string | null; readonly workers: readonly ProcessWait[]}>;

/** A rank or DataLoader worker that does not do what the job's other ranks do: the one the others wait for. */
export interface OddProcess {
	readonly role: 'rank' | 'worker';
	readonly rank: number | null;
	readonly pid: number;
	readonly activity: ProcessActivity;
	/** The kernel function its main thread sleeps in (/proc/PID/wchan); null when running or unreadable. */
	readonly wchan: string | null;
	/** Epoch ms it has been doing this since (its CPU time last advanced, or it was first seen so). */
	readonly since: number;
	/** Percent of one core over the last sample, for `computing`. */
	readonly cpuPercent?: number | null;
	/** How a gone rank ended, when read. */
	readonly exit?: ExitStatus | null;
	/** For a worker: the pid of the rank it serves. */
	readonly of?: number;
}

/** Ranks that wait alike (the same activity and wait channel). */
export interface WaitingRanks {
	readonly ranks: readonly (number | null)[];
	readonly pids: readonly number[];
	readonly activity: ProcessActivity;
	readonly wchan: string | null;
	/** Epoch ms the earliest of them started waiting. */
	readonly since: number;
}

/** Where a job's step count comes from (checkpoints/progress-*.ts reads the files). */
export type StepSource = 'checkpoints' | 'trainer-state' | 'metrics-csv' | 'progress-file';

/** One file the job appends or rewrites as it trains: its step and when it last moved. */
export interface StepSignal {
	readonly source: StepSource;
	/** The file read (absolute). */
	readonly path: string;
	/** The newest step it names; null when the file moves but names no step (a plain log). */
	readonly step: number | null;
	/** Epoch ms it was last seen to move (a new step, more bytes); null: not seen to move since traintop started. */
	readonly movedAt: number | null;
	/** Median seconds between its moves as seen; null before two. */
	readonly intervalS: number | null;
	/** Seconds per training step (interval ÷ steps between moves); null when the file names no steps. */
	readonly stepS: number | null;
}

export type ProgressEvidenceCode =
	/** A step signal moved within the window (step, source, seconds since). */
	| 'steps-moving'
	/** A step signal has not moved for longer than its window (step, source, seconds, limitS). */
	| 'steps-late'
	/** Every rank's CPU time advanced within the window. */
	| 'cpu-moving'
	/** A rank's CPU time has not advanced for the window (rank, pid, seconds). */
	| 'cpu-flat'
	/** The ranks use CPU but no step moved (a spin, or work that is not training). */
	| 'cpu-without-steps'
	/** A GPU of the ranks at ≥ 95 % utilisation and near-idle power for the window (gpu, percent, watts, limitW). */
	| 'gpu-spin'
	/** The GPUs of the ranks are busy at working power (gpu, percent, watts). */
	| 'gpu-working'
	/** Every rank waits alike and none is odd: the whole job paused (an evaluation, a barrier, I/O). */
	| 'all-waiting'
	/** NCCL's RAS service reports a communicator not RUNNING or with errors (name: its status). */
	| 'nccl-ras-error';

/** One piece of evidence, as a code and the figures its words need. */
export interface ProgressEvidence {
	readonly code: ProgressEvidenceCode;
	readonly rank?: number | null;
	readonly pid?: number;
	readonly step?: number | null;
	readonly source?: StepSource;
	readonly seconds?: number;
	readonly limitS?: number;
	readonly gpu?: number;
	readonly percent?: number;
	readonly watts?: number;
	readonly limitW?: number;
	readonly name?: string;
}

/** One job's progress verdict, with the odd ranks out and the ranks waiting for them. */
export interface JobProgress {
	readonly job: string;
	readonly verdict: ProgressVerdict;
	/** Epoch ms: for progressing, when progress was first seen (or resumed); else when the last progress was seen. */
	readonly since: number;
	/** Epoch ms of the last progress seen from any signal; null: none seen. */
	readonly lastProgressAt: number | null;
	/** The stall window in force, seconds: max(--hang-after, 3 × step time). */
	readonly windowS: number;
	/** Seconds per training step from the step signals; null when none names steps. */
	readonly stepS: number | null;
	/** The newest step read; null when no file names one. */
	readonly step: number | null;
	/** The ranks (and workers) that stand out, the one the others wait for first. Empty when none. */
	readonly odd: readonly OddProcess[];
	/** The other ranks, grouped by what they wait in. */
	readonly waiting: readonly WaitingRanks[];
	readonly evidence: readonly ProgressEvidence[];
}

/** NCCL's RAS service (NCCL ≥ 2.24, 127.0.0.1:28028), read when it answers; see system/nccl-ras*.ts. */
export interface NcclCommunicatorGroup {
	readonly group: number;
	readonly comms: number;
	readonly nodesPerComm: number;
	readonly ranksPerNode: number;
	readonly ranksPerComm: number;
	readonly ranksInGroup: number;
	/** RUNNING, INIT, FINALIZE, ABORT… as NCCL words it. */
	readonly status: string;
	/** OK, or NCCL's words for what went wrong (MISMATCH, INCOMPLETE, ERROR…). */
	readonly errors: string;
}

export type NcclRasState =
	| {
			readonly status: 'ok';
			/** Epoch ms of the answer. */
			readonly readAt: number;
			readonly version: string | null;
			readonly groups: readonly NcclCommunicatorGroup[];
			/** The lines under "Errors" and "Warnings", as NCCL wrote them. */
			readonly errors: readonly string[];
			readonly warnings: readonly string[];
			/** What changed since the previous answer, one line each ("group 0: RUNNING → ABORT"); empty: nothing. */
			readonly changes: readonly string[];
	  }
	/** Nothing answered at the port (no NCCL job here, NCCL < 2.24, or RAS off): costs one attempt a minute. */
	| {readonly status: 'absent'; readonly readAt: number; readonly reason: string};
