// Whose memory is it? The job's own RAM (each rank and its DataLoader workers, by RSS and by PSS), its GPU memory,
// each process's trend (a leak named by rank), the host's top consumers that are not the job, and GPU memory that no
// visible process accounts for. Codes and figures only: format/ words them. Carried in the Snapshot, `ranks --json`
// and the agent stream.

/** One process's memory: a rank or one of its DataLoader workers. */
export interface ProcessMemory {
	readonly pid: number;
	/** VmRSS from /proc/PID/status at the last rank scan; null when unreadable. */
	readonly rssBytes: number | null;
	/**
	 * Proportional set size (/proc/PID/smaps_rollup `Pss:`): each shared page divided among the processes mapping it,
	 * so a worker's copy-on-write share of its rank's pages is counted once across them. Read on a slower cadence than
	 * RSS (JobMemory.pssAt says when); null when unreadable (another user's process, a kernel without smaps_rollup).
	 */
	readonly pssBytes: number | null;
}

/** A rank with its workers: the unit a leak is named by. */
export interface RankMemory {
	readonly rank: number | null;
	readonly pid: number;
	readonly self: ProcessMemory;
	readonly workers: readonly ProcessMemory[];
	/** Rank + workers by RSS: overcounts the pages they share; null when the rank's own is unknown. */
	readonly rssBytes: number | null;
	/** Rank + workers by PSS; null when any of them is unknown (a partial sum would undercount without saying so). */
	readonly pssBytes: number | null;
	/** GPU memory of the rank and its workers on all GPUs (`--query-compute-apps`); null when unknown. */
	readonly gpuBytes: number | null;
}

/**
 * A process's memory trend, over a robust window (core/robust-trend.ts):
 * - `learning`: not enough of a window yet (`windowS` says how much there is);
 * - `steady`: flat, or a saw-tooth whose floor does not rise;
 * - `growing`: its floor rises steadily, for long enough and with hysteresis: a leak;
 * - `unknown`: its memory could not be read.
 */
export type MemoryTrendState = 'learning' | 'steady' | 'growing' | 'unknown';

export interface ProcessTrend {
	readonly role: 'rank' | 'worker';
	/** The rank it is or serves. */
	readonly rank: number | null;
	readonly pid: number;
	readonly state: MemoryTrendState;
	/** The robust slope in bytes per minute; null while learning or unknown. */
	readonly bytesPerMin: number | null;
	/** Seconds of data the slope is over. */
	readonly windowS: number;
	/** Epoch ms it started to grow (the window's start), for `growing`. */
	readonly since: number | null;
}

export interface JobMemory {
	readonly job: string;
	readonly ranks: readonly RankMemory[];
	/** Sums over the ranks (each with its workers); null as in RankMemory. */
	readonly rssBytes: number | null;
	readonly pssBytes: number | null;
	readonly gpuBytes: number | null;
	/** Epoch ms the PSS figures were read; null before the first read. */
	readonly pssAt: number | null;
	/** Each rank's and worker's trend, ranks first. */
	readonly trends: readonly ProcessTrend[];
	/**
	 * At the fastest growing process's rate (the job's summed growth), the epoch ms the RAM metric reaches its critical
	 * line (the job's cgroup limit where it has one, else the host's); null when nothing grows or it never would.
	 */
	readonly reachesThresholdAt: number | null;
	/** The job's summed growth in bytes per minute over its growing processes; 0 when none grows. */
	readonly growthBytesPerMin: number;
}

/** A process that is not the job's, among the host's largest by PSS: "it is not your job", at a glance. */
export interface HostConsumer {
	readonly pid: number;
	/** The owner's name (/etc/passwd), else the uid as a number's text. */
	readonly user: string;
	/** Its command line (or comm in brackets for a kernel thread). */
	readonly cmd: string;
	readonly pssBytes: number | null;
	readonly rssBytes: number | null;
}

export interface HostConsumers {
	/** Epoch ms of the read. */
	readonly sampledAt: number;
	/** Largest first, not the job's ranks or workers, at most a handful. */
	readonly top: readonly HostConsumer[];
	/** Processes read; those whose smaps_rollup was unreadable count by RSS. */
	readonly scanned: number;
}

/**
 * Why a process nvidia-smi lists is not seen here (core/gpu-unseen.ts decides, from /proc/PID/stat):
 * - `not-visible`: its pid is not in this /proc, and traintop runs in a PID namespace other than the host's (a
 *   container without `--pid=host`), or cannot tell whether it does, or /proc hides other users' processes (hidepid):
 *   what is known is only that it is not visible here. (Inside a namespace nvidia-smi mostly lists no such process
 *   at all: its memory is then in GpuUnseen.unaccountedBytes);
 * - `gone`: its pid is not in /proc while traintop sees the host's whole PID namespace: the process ended, and the
 *   driver had not yet freed its memory when nvidia-smi sampled. A pid already reused by a new process is not told
 *   apart (nvidia-smi gives no start time);
 * - `zombie`: exited, not reaped (state Z): its GPU memory is freed only when its parent reaps it;
 * - `d-state`: in uninterruptible sleep (D) while listed as holding the device: often stuck in the driver.
 */
export type UnseenReason = 'not-visible' | 'gone' | 'zombie' | 'd-state';

export interface UnseenGpuProcess {
	readonly pid: number;
	readonly usedBytes: number | null;
	readonly reason: UnseenReason;
}

/** One GPU's memory that the processes visible here do not account for. */
export interface GpuUnseen {
	readonly index: number;
	readonly uuid: string | null;
	/** memory.used minus what the processes listed for it hold; null when either is unknown. */
	readonly unaccountedBytes: number | null;
	/** Listed processes that are not live, visible processes here. */
	readonly processes: readonly UnseenGpuProcess[];
}

export interface GpuMemoryUnseen {
	/** traintop runs in a PID namespace other than the host's (/proc/self/ns/pid is not the initial one). */
	readonly pidNamespace: boolean | null;
	/** Only GPUs with something unseen (unaccounted above the tolerance, or a listed process not live here). */
	readonly gpus: readonly GpuUnseen[];
}
