import {z} from 'zod';
import {schedulerLogKeys} from '../scheduler/registry.js';

// One line of the JSON Lines memory log (stable contract, see docs/configuration.md "Memory log format").
// A superset of the seed tool's record — `timestamp`, `memory.{total_gb, used_gb, percent}`,
// `gpu.{memory_allocated_gb, memory_total_gb, memory_percent}` — so its readers keep working.
// Sizes are GiB (2^30 bytes), as the seed computed them (psutil / torch bytes ÷ 1024³).

export interface GpuRecord {
	readonly index: number;
	readonly uuid: string | null;
	readonly name: string | null;
	readonly memory_used_gb: number | null;
	readonly memory_total_gb: number | null;
	readonly memory_percent: number | null;
	readonly peak_memory_percent: number | null;
	readonly utilization_percent: number | null;
	// The GPU's sensors at the window's last sample (null: N/A, or not asked of this driver). The writer always sets
	// them; older records lack them and the readers do not read them.
	readonly temperature_c?: number | null;
	readonly power_draw_w?: number | null;
	readonly power_limit_w?: number | null;
	/**
	 * The GPU's own critical memory threshold (percent) as the live alerts judged it: written only where it differs
	 * from the run's `--gpu-threshold` (a `--gpu-thresholds` entry, a cluster.yaml reserve factor). Absent: the global
	 * one. Older readers ignore it; `--analyze` judges the GPU by it, record by record.
	 */
	readonly threshold?: number;
}

/** `memory.cgroup`: the memory limit the job's ranks run under (see system/cgroup-memory.ts for `used_gb`). */
export interface CgroupRecord {
	/** `job`: the ranks' cgroup; `traintop`: traintop's own (a container, or no ranks found). */
	readonly scope: 'job' | 'traintop';
	/** The cgroup holding the limit, as /proc/PID/cgroup names it. */
	readonly path: string;
	readonly version: 1 | 2;
	readonly limit_gb: number;
	readonly used_gb: number;
	readonly percent: number;
	readonly peak_percent: number;
}

/**
 * The scheduler's job a record was written under, under the scheduler's own key (its entry's `logKey`);
 * `restart_count` grows by one at each requeue.
 */
export interface LogSchedulerJob {
	readonly job_id: string;
	readonly restart_count: number;
}

export interface AlertRecord {
	readonly time: string;
	readonly metric: string;
	readonly value: number;
	readonly threshold: number;
	readonly from: string;
	readonly to: string;
}

export interface LogRecord {
	/** ISO 8601 (UTC) time of the window's last sample. */
	readonly timestamp: string;
	readonly host: string;
	/** The log interval: the span of time this record covers. */
	readonly interval_s: number;
	/** Samples taken in the window. */
	readonly samples: number;
	readonly memory: {
		readonly total_gb: number;
		readonly used_gb: number;
		readonly percent: number;
		readonly available_gb: number;
		readonly peak_percent: number;
		readonly peak_used_gb: number;
		/**
		 * The job's cgroup limit, when one is tighter than the host's RAM: the RAM threshold and alerts are judged
		 * against it (`percent` above stays the host's). Absent without a limit.
		 */
		readonly cgroup?: CgroupRecord;
	} | null;
	/** null on a machine without swap. */
	readonly swap: {
		readonly total_gb: number;
		readonly used_gb: number;
		readonly percent: number;
		readonly peak_percent: number;
	} | null;
	/** Aggregate over all GPUs with known memory; null when there is none. */
	readonly gpu: {
		/** Named as in the seed; from nvidia-smi this is memory used on the device, not torch's allocator view. */
		readonly memory_allocated_gb: number;
		readonly memory_total_gb: number;
		readonly memory_percent: number;
		readonly peak_memory_percent: number;
	} | null;
	readonly gpus: readonly GpuRecord[];
	/**
	 * Host CPU: busy percent of all cores at the window's last sample and the window's peak (null before the second
	 * reading). Absent where the CPU is not read (older records, a source without /proc).
	 */
	readonly cpu?: {readonly percent: number | null; readonly peak_percent: number | null};
	/** ok | absent | error | starting: why `gpus` may be empty. */
	readonly gpu_status: string;
	/** The reason for absent/error, or a driver warning; omitted when there is nothing to say. */
	readonly gpu_message?: string;
	/** Level changes inside the window. */
	readonly alerts: readonly AlertRecord[];
	/**
	 * Under each registered scheduler's log key (scheduler/entry.ts `logKey`), a LogSchedulerJob: the
	 * job of the scheduler's last answer, null outside its jobs or before its first answer. `--analyze` reads a grown
	 * restart_count as a requeue. The window always writes every key; older records lack them.
	 */
	readonly [schedulerLogKey: string]: unknown;
}

const num = z.number();
const nullableNum = z.number().nullable();

/**
 * What a reader accepts as a memory record: the seed tool's minimal record up to ours. Extra
 * fields are ignored (z.object strips them), so newer writers do not break older readers.
 */
const recordSchema = z.object({
	timestamp: z.string().refine(s => !Number.isNaN(Date.parse(s)), 'not a date'),
	host: z.string().optional(),
	interval_s: num.optional(),
	samples: num.optional(),
	memory: z
		.object({
			total_gb: num,
			used_gb: num,
			percent: num,
			available_gb: num.optional(),
			peak_percent: num.optional(),
			peak_used_gb: num.optional(),
			// The writer's scope is 'job' | 'traintop' and version 1 | 2; a reader needs only the numbers and the scope.
			cgroup: z
				.object({
					scope: z.string().optional(),
					path: z.string().optional(),
					version: num.optional(),
					limit_gb: num,
					used_gb: num,
					percent: num,
					peak_percent: num.optional(),
				})
				.optional(),
		})
		.nullable(),
	swap: z.object({total_gb: num, used_gb: num, percent: num, peak_percent: num.optional()}).nullable().optional(),
	gpu: z
		.object({
			memory_allocated_gb: num,
			memory_total_gb: num,
			memory_percent: num,
			peak_memory_percent: num.optional(),
		})
		.nullable()
		.optional(),
	gpus: z
		.array(
			z.object({
				index: num,
				uuid: z.string().nullable().optional(),
				name: z.string().nullable().optional(),
				memory_used_gb: nullableNum,
				memory_total_gb: nullableNum,
				memory_percent: nullableNum,
				peak_memory_percent: nullableNum.optional(),
				utilization_percent: nullableNum.optional(),
				threshold: num.optional(),
			}),
		)
		.optional(),
	gpu_status: z.string().optional(),
	gpu_message: z.string().optional(),
	alerts: z
		.array(
			z.object({time: z.string(), metric: z.string(), value: num, threshold: num, from: z.string(), to: z.string()}),
		)
		.optional(),
});

/** A checked record; the schedulers' log keys are in it too (logJobOf reads them). */
export type ReadLogRecord = z.infer<typeof recordSchema> & {readonly [schedulerLogKey: string]: unknown};

const jobSchema = z.object({job_id: z.string(), restart_count: num}).nullable().optional();

/** The schema with the schedulers' log keys (from the registry), which its inferred type cannot name. */
export const logRecordReadSchema = recordSchema.extend(
	Object.fromEntries(schedulerLogKeys().map(({key}) => [key, jobSchema])),
) as unknown as z.ZodType<ReadLogRecord>;

/** The job a checked record names under the scheduler's log key `key`; null or undefined when none. */
export function logJobOf(record: ReadLogRecord, key: string): LogSchedulerJob | null | undefined {
	return record[key] as LogSchedulerJob | null | undefined;
}
