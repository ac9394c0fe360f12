// What a Monitor is built from: its sources (injected, so tests drive it with plain objects), thresholds and
// options. Kept apart from monitor.ts, which is the sampling itself.

import type {ReadinessOptions} from './job-readiness.js';
import type {JobMemory} from './memory-types.js';
import type {ProgressOptions} from './progress.js';
import type {NcclRasState, RankWaits, StepSignal} from './progress-types.js';
import type {ThresholdRule} from './thresholds.js';
import type {SchedulerSource} from '../scheduler/types.js';
import type {CheckpointIndex, GpuProcessTable, GpuState, HostCpu, HostMemory, RankSet} from './types.js';
import type {GpuMemoryUnseen, HostConsumers} from './memory-types.js';

/** Where the Monitor's readings come from; injected so tests drive it with plain objects. */
export interface MonitorSources {
	/**
	 * Host RAM and swap, and the job's cgroup limit: `ranks` is the last rank scan (null before it), whose cgroups
	 * hold the limit. May reject: the snapshot then carries `memoryError` and the last reading.
	 */
	readMemory(ranks?: RankSet | null): Promise<HostMemory>;
	/** Host CPU and load, read synchronously each tick; absent = not shown. */
	readCpu?(): HostCpu | null;
	/** A push source (the nvidia-smi supervisor) read synchronously on each tick. */
	readonly gpu: {
		getState(): GpuState;
		getProcesses(): GpuProcessTable;
	};
	/**
	 * The run dir's checkpoint index (checkpoints/watch.ts), a push source like the GPU reader. A change
	 * is published at once (an extra tick), not at the next interval: a new checkpoint reaches the
	 * snapshot as fast as the watcher sees it.
	 */
	readonly checkpoints?: {
		getIndex(): CheckpointIndex | null;
		subscribe?(listener: () => void): () => void;
	};
	/** The job's ranks (ranks/discover.ts), read every `ranksIntervalMs`; absent = no rank sampling. */
	readRanks?(gpuProcesses: GpuProcessTable): Promise<RankSet>;
	/** Where the ranks that did not compute at a scan wait (ranks/rank-waits.ts), read right after each scan. */
	readWaits?(ranks: RankSet): RankWaits;
	/**
	 * Each job's own memory, its ranks and DataLoader workers by RSS and PSS (ranks/job-memory.ts), read right after
	 * each scan; the same array while nothing in it changed.
	 */
	readJobMemory?(ranks: RankSet): readonly JobMemory[];
	/** The run dir's step signals (checkpoints/progress-*.ts), read on every tick: a stat per followed file. */
	readSteps?(index: CheckpointIndex | null): readonly StepSignal[];
	/** NCCL's RAS service, polled on its own cadence (system/nccl-ras-poller.ts); its last answer is read per tick. */
	readonly ncclRas?: {current(): NcclRasState | null};
	/** GPU memory no visible process accounts for (system/gpu-unseen.ts): judged anew only when the process table is. */
	readGpuUnseen?(gpu: GpuState, processes: GpuProcessTable): GpuMemoryUnseen | null;
	/** The host's top consumers that are not the job (system/host-consumers.ts), read only while `short`. */
	readHostConsumers?(ranks: RankSet | null, short: boolean): HostConsumers | null;
	/**
	 * The job as its scheduler sees it (scheduler/registry.ts followJob): read on its own slow cadence, never per tick;
	 * a new reading is published at once. Absent outside a scheduler.
	 */
	readonly scheduler?: SchedulerSource;
}

export interface MonitorThresholds {
	readonly ram: ThresholdRule;
	readonly swap: ThresholdRule;
	/** Applied to each GPU's memory percent, except those `gpuByUuid` names. */
	readonly gpu: ThresholdRule;
	/** A GPU's own rule by its uuid (--gpu-thresholds, a cluster.yaml's reserve factor): a smaller or shared-memory GPU. */
	readonly gpuByUuid?: ReadonlyMap<string, ThresholdRule>;
}

export interface MonitorOptions {
	readonly sources: MonitorSources;
	readonly thresholds: MonitorThresholds;
	/** Sampling period of `start()`. Tests call `tick()` instead. */
	readonly intervalMs: number;
	readonly host: string;
	/** Samples kept as they came per metric (default 3600: an hour at 1 s); the whole run is kept coarser. */
	readonly historyLength?: number;
	/** Chart marks kept (saves, alerts, exits; default 1000). */
	readonly markerLimit?: number;
	/** How often ranks are scanned (default 2000 ms); the scan runs on the first tick at or after it. */
	readonly ranksIntervalMs?: number;
	/** Level changes kept in `recentAlerts` (default 50). */
	readonly recentAlertLimit?: number;
	/** Job events kept in `recentEvents`, of each place (core/event-places.ts: alerts, checkpoints; default 50). */
	readonly recentEventLimit?: number;
	/** --grace and --max-work-at-risk, for each job's preemption readiness; absent: neither given. */
	readonly readiness?: ReadinessOptions;
	/** --hang-after, for each job's progress verdict; absent: the default (core/progress.ts). */
	readonly progress?: ProgressOptions;
	readonly now?: () => number;
}
