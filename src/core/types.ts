// The shapes that flow from the readers through the Monitor to every view. No I/O, no React.
// Sizes are bytes and percentages are 0–100 throughout the core; only the memory log converts to GiB.

import type {JobEvent, RankSet} from './job-types.js';
export type {
	CheckpointStatus,
	CheckpointKind,
	RetentionMark,
	ScannedCheckpoint,
	CheckpointMetric,
	MonitorSetting,
	DeclaredFact,
	DeclaredCadence,
	DeclaredRetention,
	SentSignal,
	SaveCadence,
	ScanGroup,
	ScanResult,
	CheckpointSearch,
	Checkpoint,
	RetentionSource,
	RetentionGroup,
	CheckpointIndex,
} from './checkpoint-types.js';
import type {SchedulerState} from '../scheduler/types.js';
import type {DeadlineRisk} from './deadline-risk.js';
import type {Readiness} from './readiness-types.js';
import type {JobProgress, NcclRasState} from './progress-types.js';
import type {CheckpointIndex} from './checkpoint-types.js';
import type {GpuHealth} from './gpu-health-types.js';
import type {GpuMemoryUnseen, HostConsumers, JobMemory} from './memory-types.js';
import type {Level} from './level.js';

export type {
	SignalState,
	RankProcess,
	LauncherProcess,
	JobIdentityKind,
	Job,
	MembershipProof,
	UnprovenMember,
	UnprovenReason,
	ExitStatus,
	DepartedProcess,
	EndedJob,
	RankSet,
	JobEvent,
} from './job-types.js';

export type {Level};

/** Host RAM. `used` is total − available (what the OOM killer cares about), as psutil's `percent`. */
export interface RamReading {
	readonly totalBytes: number;
	readonly usedBytes: number;
	readonly availableBytes: number;
	readonly percent: number;
}

export interface SwapReading {
	readonly totalBytes: number;
	readonly usedBytes: number;
	readonly percent: number;
}

/** Host CPU: busy share of all cores since the previous tick, and the load average. */
export interface HostCpu {
	/** 0–100 over all cores; null on the first reading. */
	readonly percent: number | null;
	/** Online cores. */
	readonly cores: number;
	/** 1, 5 and 15 minute load averages; null when unreadable. */
	readonly load: readonly [number, number, number] | null;
}

/**
 * The memory limit that the job actually runs under: its cgroup's memory.max (v2) or memory.limit_in_bytes (v1),
 * the tightest one from its cgroup up. The kernel's OOM killer acts at this limit, not at the host's total.
 */
export interface CgroupMemoryReading {
	/** `job`: the cgroup of the monitored ranks; `traintop`: traintop's own (no ranks yet, or a container). */
	readonly scope: 'job' | 'traintop';
	readonly version: 1 | 2;
	/** The cgroup that holds the limit, as /proc/PID/cgroup names it (`/user.slice/job_5`). */
	readonly path: string;
	readonly limitBytes: number;
	/** Charged memory less inactive file cache (what `docker stats` shows): see system/cgroup-memory.ts. */
	readonly usedBytes: number;
	/** used / limit × 100. */
	readonly percent: number;
}

export interface HostMemory {
	readonly ram: RamReading;
	/** The job's cgroup limit when there is one tighter than the host's RAM; absent or null: none (the host counts). */
	readonly cgroup?: CgroupMemoryReading | null;
	/** null on a machine without swap: absent, never 0 % of 0 and never NaN. */
	readonly swap: SwapReading | null;
}

/** One GPU as `nvidia-smi --query-gpu` reports it; every value nvidia-smi marks N/A is null. */
export interface GpuReading {
	readonly index: number;
	readonly uuid: string | null;
	readonly name: string | null;
	readonly memoryTotalBytes: number | null;
	readonly memoryUsedBytes: number | null;
	/** used / total × 100, null when either is unknown (MIG, unified-memory GB10). */
	readonly memoryPercent: number | null;
	readonly utilizationPercent: number | null;
	// The sensors (`temperature.gpu`, `power.draw`, `power.limit`). nvidia-smi's reader always sets them (null when the
	// driver marks them N/A or does not know the field); a reading built elsewhere may leave them out (= unknown).
	/** GPU core temperature in °C. */
	readonly temperatureC?: number | null;
	/** Board power draw in W (nvidia-smi's `power.draw`: averaged where the GPU offers it, else instant). */
	readonly powerDrawW?: number | null;
	/** The power limit in W. */
	readonly powerLimitW?: number | null;
	/** Throttling, ECC, retired pages, remapped rows, MIG mode (core/gpu-health-types.ts); absent: not asked. */
	readonly health?: GpuHealth | null;
}

/** GPU memory held by one process on one GPU (`--query-compute-apps`). */
export interface GpuProcess {
	readonly pid: number;
	readonly gpuUuid: string | null;
	/** null where the driver cannot attribute memory (Windows WDDM, vGPU guests). */
	readonly usedBytes: number | null;
}

/**
 * What the GPU reader knows right now (nvidia-smi's words below; another backend's states mean the same).
 * - `starting`: nvidia-smi spawned, first sample not in yet.
 * - `ok`: a current sample (`warning` carries non-fatal text such as "infoROM is corrupted").
 * - `absent`: no NVIDIA tooling here (nvidia-smi not installed, or GPU sampling turned off); not retried.
 * - `error`: nvidia-smi failed or stopped answering; `retryAt` says when the supervisor tries again.
 */
export type GpuState = (
	| {readonly status: 'starting'}
	| {
			readonly status: 'ok';
			readonly gpus: readonly GpuReading[];
			/** Epoch ms of the sample. */
			readonly sampledAt: number;
			readonly warning: string | null;
	  }
	| {readonly status: 'absent'; readonly reason: string}
	| {readonly status: 'error'; readonly message: string; readonly retryAt: number | null}
) & {
	/**
	 * The backend that read it (system/gpu-backend.ts), named in the views' words; absent in a state from before
	 * backends were named (an older agent: nvidia-smi then) and in hand-made states.
	 */
	readonly source?: GpuSource;
};

/** The GPU backends traintop can read devices with (system/gpu-backend.ts picks one). */
export type GpuSource = 'nvidia-smi';

/** Per-process GPU memory, sampled on a slower cadence than the devices. */
export interface GpuProcessTable {
	readonly processes: readonly GpuProcess[];
	/** Epoch ms of the sample, null before the first one. */
	readonly sampledAt: number | null;
	/** Why the last attempt failed, if it did (the table then keeps the last good rows). */
	readonly error: string | null;
}

/** The table before the first compute-apps answer, or while the GPUs do not answer. */
export const NO_GPU_PROCESSES: GpuProcessTable = {processes: [], sampledAt: null, error: null};

/** A process's identity against PID reuse: its pid and its start time (/proc/PID/stat field 22). */
export function processIdentity(process: {readonly pid: number; readonly startTime: number}): string {
	return `${process.pid}@${process.startTime}`;
}

/** Anything the Monitor can judge against a threshold: `ram`, `swap`, `gpu0`, `gpu1`, … */
export type MetricId = string;

export interface Alert {
	/** Epoch ms. */
	readonly time: number;
	readonly metric: MetricId;
	readonly value: number;
	/** The critical threshold of the metric, in percent. */
	readonly threshold: number;
	readonly from: Level;
	readonly to: Level;
}

export interface MetricStatus {
	readonly value: number | null;
	readonly level: Level;
	/** Highest value seen since the Monitor started. */
	readonly peak: number | null;
	/** Critical threshold in percent. */
	readonly threshold: number;
	/**
	 * True when this tick could not read the metric (a failed /proc/meminfo read): value, level and
	 * peak are the last judged ones, shown as such rather than dropped, since "RAM ok" is a lie at 90 %.
	 */
	readonly stale?: boolean;
}

/** One immutable picture of the machine and the job; a new object on every tick. */
export interface Snapshot {
	/** Epoch ms of the tick that made it. */
	readonly time: number;
	readonly host: string;
	readonly tick: number;
	readonly memory: HostMemory | null;
	/** Host CPU and load; absent or null where it is not read (no /proc, a scripted source). */
	readonly cpu?: HostCpu | null;
	/** Why the last memory read failed, if it did. */
	readonly memoryError: string | null;
	readonly gpu: GpuState;
	readonly gpuProcesses: GpuProcessTable;
	/** The job's ranks at the last scan; null before the first or without rank sampling. */
	readonly ranks: RankSet | null;
	/** Why the last rank scan failed, if it did (the last ranks are kept). */
	readonly ranksError: string | null;
	/** The run dir's checkpoints, retention plan and disk; null without a run dir. */
	readonly checkpoints: CheckpointIndex | null;
	/** The job as its scheduler sees it (its deadline, requeues, its own detail); null (or absent) outside one. */
	readonly scheduler?: SchedulerState | null;
	/**
	 * The scheduler's deadline against the save cadence (core/deadline-risk.ts): the work lost at the time limit, the
	 * warning's lead against the last save's duration. null (or absent) when the job is not running under a limit.
	 */
	readonly deadlineRisk?: DeadlineRisk | null;
	/**
	 * Each job's preemption readiness (core/readiness.ts): would it save in time if its node were taken now. Absent
	 * from an older agent's snapshots.
	 */
	readonly readiness?: readonly Readiness[];
	/**
	 * Each job's progress (core/progress.ts): progressing, stalled or hung, the odd rank out and the ranks waiting for
	 * it. Absent from an older agent's snapshots.
	 */
	readonly progress?: readonly JobProgress[];
	/** NCCL's RAS service on this node, when it was asked (system/nccl-ras-poller.ts); absent or null: not asked. */
	readonly ncclRas?: NcclRasState | null;
	/**
	 * Each job's own memory (core/memory-types.ts): its ranks and workers by RSS and PSS, GPU memory, each process's
	 * trend. Absent from an older agent's snapshots.
	 */
	readonly jobMemory?: readonly JobMemory[];
	/** The host's largest processes that are not the job's, read while the host is short of RAM; absent or null: not read. */
	readonly hostConsumers?: HostConsumers | null;
	/** GPU memory no process visible here accounts for; absent or null: not judged (no GPU, no process table yet). */
	readonly gpuUnseen?: GpuMemoryUnseen | null;
	readonly metrics: Readonly<Record<MetricId, MetricStatus>>;
	/** Level changes of this tick only. */
	readonly newAlerts: readonly Alert[];
	/** The most recent level changes, newest last, bounded. */
	readonly recentAlerts: readonly Alert[];
	/** The job's life events of this tick only (exits, stops, stalls, saves). */
	readonly events: readonly JobEvent[];
	/** The most recent events, newest last, bounded per place (core/event-places.ts): saves never push out a problem. */
	readonly recentEvents: readonly JobEvent[];
	/** Saves seen since the Monitor started (shown on the checkpoints pane, not as alerts); absent: not counted. */
	readonly savesSeen?: number;
}
