// The shapes that flow from the readers through the Monitor to every view. No I/O, no React.
// Sizes are bytes and percentages are 0–100 throughout the core; only the memory log converts to GiB.

import type {JobEvent, RankSet} from './job-types.js';
import type {Level} from './level.js';
import type {SlurmView} from './slurm-types.js';

export type {
	SignalState,
	SlurmInfo,
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
	/** The cgroup that holds the limit, as /proc/PID/cgroup names it (`/slurm/uid_0/job_5`). */
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
}

/** GPU memory held by one process on one GPU (`--query-compute-apps`). */
export interface GpuProcess {
	readonly pid: number;
	readonly gpuUuid: string | null;
	/** null where the driver cannot attribute memory (Windows WDDM, vGPU guests). */
	readonly usedBytes: number | null;
}

/**
 * What the GPU reader knows right now.
 * - `starting`: nvidia-smi spawned, first sample not in yet.
 * - `ok`: a current sample (`warning` carries non-fatal text such as "infoROM is corrupted").
 * - `absent`: no NVIDIA tooling here (nvidia-smi not installed, or GPU sampling turned off); not retried.
 * - `error`: nvidia-smi failed or stopped answering; `retryAt` says when the supervisor tries again.
 */
export type GpuState =
	| {readonly status: 'starting'}
	| {
			readonly status: 'ok';
			readonly gpus: readonly GpuReading[];
			/** Epoch ms of the sample. */
			readonly sampledAt: number;
			readonly warning: string | null;
	  }
	| {readonly status: 'absent'; readonly reason: string}
	| {readonly status: 'error'; readonly message: string; readonly retryAt: number | null};

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
	/** The SLURM job as its controller sees it; null (or absent) outside SLURM. */
	readonly slurm?: SlurmView | null;
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

export type CheckpointStatus = 'complete' | 'partial';
export type CheckpointKind = 'periodic' | 'manual' | 'emergency' | 'last' | 'best' | 'unknown';
export type RetentionMark = 'keep' | 'prune-next' | 'protected';

/** One checkpoint found on disk by checkpoints/scan.ts (before any retention reasoning). */
export interface ScannedCheckpoint {
	/** Absolute path of the checkpoint file or directory. */
	readonly path: string;
	readonly name: string;
	/** Which layout recognised it: seed, huggingface, lightning, deepspeed, dcp, generic. */
	readonly layout: string;
	readonly step: number | null;
	readonly epoch: number | null;
	/** Epoch ms it was written: from the layout's own metadata when it has one, else the mtime. */
	readonly time: number;
	/** File size, or the sum of a directory's files. */
	readonly bytes: number;
	/**
	 * Seconds from its first file's creation to its last file's last write: how long the save took to write. Null
	 * while partial, and where the file system records no creation time.
	 */
	readonly writeS: number | null;
	readonly status: CheckpointStatus;
	readonly kind: CheckpointKind;
	/** Last training loss when the layout records it (HF trainer_state.json); else null. */
	readonly loss: number | null;
	/** The monitored score its name or metadata carries (Lightning's `val_loss=0.32`): what top-k retention ranks. */
	readonly metric: CheckpointMetric | null;
	/** Its checkpoint group: one layout's checkpoints in one directory, which that framework rotates together. */
	readonly group: string;
	/** Why something about it is unknown (a malformed trainer_state.json…); empty when all is well. */
	readonly warnings: readonly string[];
	/** The job's own words for why it saved (the seed metadata's `reason`), when it records them. */
	readonly reason?: string;
	/**
	 * Why its kind is what traintop made of it rather than what the job recorded ("after traintop's SIGUSR1 at
	 * 10:42:07"), or why it may be the save a signal asked for ("step 900 is also a periodic step"); absent otherwise.
	 */
	readonly kindNote?: string;
}

export interface CheckpointMetric {
	readonly name: string;
	readonly value: number;
}

/** A monitored metric and whether lower or higher is better; mode null: not known. */
export interface MonitorSetting {
	readonly name: string;
	readonly mode: 'min' | 'max' | null;
	/** How the mode was learned: "config.yaml", "guessed from the name". */
	readonly modeFrom: string | null;
}

/** One setting a run's own files declare, as read and where: shown so that the user can check it. */
export interface DeclaredFact {
	/** The framework's own name for it: "save_total_limit", "every_n_train_steps", "best_k_models". */
	readonly key: string;
	/** As the framework wrote it, in its own words: "2", "None", "'steps'", "2 entries". */
	readonly value: string;
	/** The file it was read from, relative to the run dir: "checkpoint-50/training_args.bin". */
	readonly from: string;
	/** True when traintop worked it out from other facts (Lightning stores no save_top_k) rather than read it. */
	readonly inferred?: boolean;
}

/** How often the run's own files say the job saves; a null field: not said. */
export interface DeclaredCadence {
	readonly everySteps: number | null;
	readonly everyEpochs: number | null;
	readonly everySeconds: number | null;
	/** Where it was read: "checkpoint-50/training_args.bin save_steps". */
	readonly from: string;
}

/** What a run's own files say about its framework's retention (save_total_limit, save_top_k, max_checkpoints…). */
export interface DeclaredRetention {
	/** keep-N; 'all' when they say to keep every checkpoint (Lightning's save_top_k −1); null when they do not say. */
	readonly keep: number | 'all' | null;
	/** Where it was read, for the rule line and warnings: "training_args.bin save_total_limit". */
	readonly from: string;
	readonly monitor: MonitorSetting | null;
	/** keep was inferred from other facts (Lightning: the size of best_k_models), not read as a setting. */
	readonly keepInferred?: boolean;
	/** The save cadence the files declare (HF save_steps, Lightning every_n_train_steps…); absent: not said. */
	readonly cadence?: DeclaredCadence | null;
	/** Every setting read, with where: the rule line's evidence. */
	readonly facts?: readonly DeclaredFact[];
}

/**
 * A signal traintop sent to the run dir's job and what it asks of it: a save (SIGUSR1: manual) or a save and exit
 * (SIGTERM: emergency). The watcher keeps the recent ones: a save right after one is that save, and a job being
 * stopped by it is never OVERDUE.
 */
export interface SentSignal {
	readonly signal: string;
	readonly expect: 'manual' | 'emergency';
	/** Epoch ms it was sent. */
	readonly at: number;
	/** The job it went to, when known. */
	readonly job: string | null;
	/**
	 * Paths of the complete checkpoints traintop had seen before it was sent (the watcher fills it in noteSignal):
	 * none of them is the save it asked for.
	 */
	readonly before?: readonly string[];
	/** Paths of the save that answered it, once one did (the watcher fills it): no later save is taken for it. */
	readonly answeredBy?: readonly string[];
}

/**
 * The job's save cadence: declared by its files or learned from the saves traintop saw (checkpoints/cadence.ts), its
 * pace, and when the next periodic save is due. OVERDUE is judged against nextAt, never guessed while learning.
 */
export interface SaveCadence {
	/** Steps between periodic saves; null while not known. */
	readonly everySteps: number | null;
	/** Seconds between periodic saves: declared (time-based), or everySteps over the pace, or the gaps seen. */
	readonly everySeconds: number | null;
	/** declared: the run's files; learned: the saves seen; null: not known yet. */
	readonly from: 'declared' | 'learned' | null;
	/** Where, in words: "checkpoint-50/training_args.bin save_steps", "4 periodic saves seen". */
	readonly source: string | null;
	/** Steps per second, from consecutive periodic saves; null while unknown. */
	readonly stepsPerSecond: number | null;
	/** The step and epoch ms of the next periodic save expected; null while unknown. */
	readonly nextStep: number | null;
	readonly nextAt: number | null;
	/** While the verdict is not possible, why: "learning: 1 periodic save seen, 3 needed"; null once known. */
	readonly learning: string | null;
	/** Epoch ms from which the save is OVERDUE: nextAt plus the margin (cadence.ts); null while learning or suspended. */
	readonly overdueAt: number | null;
	/** Why OVERDUE is not judged although the cadence is known (traintop's own emergency signal stops the job). */
	readonly suspended: string | null;
}

/** One layout's checkpoints in one directory. */
export interface ScanGroup {
	/** `<layout>:<dir relative to the run dir>`, as ScannedCheckpoint.group. */
	readonly key: string;
	readonly layout: string;
	/** Relative to the run dir ('' for the run dir itself). */
	readonly dir: string;
	readonly declared: DeclaredRetention | null;
}

export interface ScanResult {
	readonly runDir: string;
	/** Layouts seen, in a stable order. */
	readonly layouts: readonly string[];
	/** Oldest first (by step where known, else time). */
	readonly checkpoints: readonly ScannedCheckpoint[];
	/** Each layout's checkpoints per directory, in scan order, with what the run declares about their retention. */
	readonly groups: readonly ScanGroup[];
	/** Problems with the run dir's own files (a malformed checkpoint_metadata.json…). */
	readonly warnings: readonly string[];
	/** Where the scan looked below the run dir (checkpoints/search.ts); absent on a result made without a search. */
	readonly search?: CheckpointSearch;
}

/** What the checkpoint search below a run dir listed and left out: shown when it found nothing, followed by the watcher. */
export interface CheckpointSearchSummary {
	/** Directories listed (the run dir counts). */
	readonly dirs: number;
	/** The depth bound: levels below the run dir that were listed at most. */
	readonly maxDepth: number;
	/** Directories left out for what they are (`.git`, `.venv`, `data`…), relative to the run dir; the first few only. */
	readonly skipped: readonly string[];
	/** Stopped at the cap on directories listed: some below the run dir were not searched. */
	readonly capped: boolean;
}

export interface CheckpointSearch extends CheckpointSearchSummary {
	/** Directories listed, relative to the run dir ('' for the run dir), in the order listed. */
	readonly listed: readonly string[];
	/** Checkpoints that are directories, relative to the run dir: their changes (a last file written) change the scan. */
	readonly checkpointDirs: readonly string[];
}

export interface Checkpoint extends ScannedCheckpoint {
	readonly retention: RetentionMark;
}

/** learned: from what traintop saw the job delete (checkpoints/learned-retention.ts). */
export type RetentionSource = 'flag' | 'metadata' | 'learned' | 'none';

/** One checkpoint group's retention under its framework's rule. */
export interface RetentionGroup {
	readonly key: string;
	readonly layout: string;
	/** The framework's name: "Hugging Face Trainer". */
	readonly framework: string;
	/** Relative to the run dir. */
	readonly dir: string;
	/** The rule in use, in the framework's words: "HF save_total_limit 3, best protected". */
	readonly rule: string;
	readonly keep: number | null;
	readonly source: RetentionSource;
	/** Where the run's files declared keep ("training_args.bin save_total_limit"), when source is metadata. */
	readonly from: string | null;
	readonly count: number;
	readonly toPrune: readonly string[];
	/** What the run's files declare for this group, each with its file (DeclaredRetention.facts); absent: none read. */
	readonly facts?: readonly DeclaredFact[];
	/** The save cadence they declare; absent: not said. */
	readonly cadence?: DeclaredCadence;
	/** keep (source metadata) was inferred from other facts, not read as a setting: Lightning's best_k_models. */
	readonly keepInferred?: boolean;
}

export interface CheckpointIndex {
	readonly runDir: string;
	readonly layouts: readonly string[];
	/** Oldest first. */
	readonly checkpoints: readonly Checkpoint[];
	readonly retention: {
		readonly keep: number | null;
		/**
		 * Where keep came from: --keep (flag), the job's metadata, what the job was seen deleting (learned), or nowhere
		 * (none: nothing is pruned).
		 */
		readonly source: RetentionSource;
		/** Complete checkpoints that count against keep (protected ones do not). */
		readonly count: number;
		/** Paths a keep-N rotation deletes at the next save. */
		readonly toPrune: readonly string[];
		/** Per checkpoint group, under its framework's own rule; the fields above are the main group's (toPrune: all). */
		readonly groups: readonly RetentionGroup[];
	};
	readonly disk: {
		readonly freeBytes: number | null;
		readonly totalBytes: number | null;
		readonly avgCheckpointBytes: number | null;
		/** How many more saves of the average size fit (counting what retention frees); null if unknown. */
		readonly savesUntilFull: number | null;
	};
	readonly lastSave: {
		/** Epoch ms of the newest complete save of any kind (what the user sees as "last save"). */
		readonly time: number;
		readonly ageS: number;
		/** Median interval between the periodic (or unknown-kind) saves on disk: figures only (the cadence is SaveCadence). */
		readonly medianIntervalS: number | null;
		/** Epoch ms of the newest periodic (or unknown-kind) save; null when there is none. The OVERDUE event names it. */
		readonly periodicTime: number | null;
		/**
		 * The next periodic save, expected by the cadence (SaveCadence), has not come by overdueAt: its expected time plus
		 * a margin. Never while the cadence is being learned, nor while traintop's own emergency signal stops the job.
		 */
		readonly overdue: boolean;
		/** SaveCadence.overdueAt, kept here so that the age can be renewed on the clock (lastSaveAt). */
		readonly overdueAt?: number | null;
	} | null;
	readonly warnings: readonly string[];
	/** Epoch ms of the scan. */
	readonly scannedAt: number;
	/** The job's save cadence and its next save (checkpoints/cadence.ts); absent on an index built without history. */
	readonly cadence?: SaveCadence;
	/**
	 * The last time the run dir was deleted, or deleted and made again, while watched (its inode changed): the
	 * watcher re-attached to the new one. Absent while it never was.
	 */
	readonly runDirReplaced?: {readonly at: number; readonly text: string};
	/**
	 * The last time the run dir was found unreadable (a directory the user may not list: EACCES), or readable again
	 * after that. Absent while it never was unreadable.
	 */
	readonly runDirAccess?: {readonly at: number; readonly text: string; readonly readable: boolean};
	/**
	 * True on the stand-in the watcher gives while its first scan of the run dir runs (a run dir of 100k files takes
	 * seconds): no checkpoint is known yet, which is not "none there". Events do not count the first scan's
	 * checkpoints as new against it. Absent on a scanned index.
	 */
	readonly scanning?: true;
	/**
	 * On the first scanned index only: its checkpoints that were written while that first scan ran (the watcher heard
	 * them): saves, unlike the others it found. Absent when none was.
	 */
	readonly writtenWhileScanning?: readonly string[];
	/** Where the scan looked: what a view says when it found nothing. Absent on an index built without a search. */
	readonly search?: CheckpointSearchSummary;
}
