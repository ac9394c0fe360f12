import type {Column} from './column.js';
import type {Folded} from './fold.js';
import type {MetricSeries} from './metric-series.js';

// What the collector (series.ts) makes of a memory log: per-record columns and the metrics' series, for the reports.

/** A scheduler's job as the log names it: the scheduler's log key (its entry's `logKey`) and the job's id there. */
export interface LoggedJob {
	readonly key: string;
	readonly id: string;
}

/** A time going backwards in input order (a restart, or files given out of order). */
export interface TimeJump {
	/** Epoch ms of the record that went back. */
	readonly time: number;
	/** Epoch ms of the record before it (of the same host, in a log of several hosts). */
	readonly previous: number;
	/** Index into Series.hosts of the host it happened on; -1 for records that name none. */
	readonly host: number;
}

export interface Series {
	/** Records added (each one a point in time, whatever metrics it has). */
	readonly records: number;
	/** Epoch ms per record, ascending. */
	readonly time: Float64Array;
	/** interval_s per record; NaN when the record has none. */
	readonly interval: Column;
	/** Index into `hosts` per record; -1 when the record names none. */
	readonly host: Column;
	readonly hosts: readonly string[];
	/**
	 * Index into `schedulerJobs` per record; -1 when the record names no scheduler's job (outside one, or an older
	 * log).
	 */
	readonly schedulerJob: Column;
	readonly schedulerJobs: readonly LoggedJob[];
	/** The scheduler's restart count of the job per record; -1 when the record names no job. */
	readonly schedulerRestarts: Column;
	/** What the record's `ram` point is judged against (RAM_AGAINST); HOST_RAM when it has no RAM point. */
	readonly ramAgainst: Column;
	/** The cgroup limit of the record's `ram` point, GiB; NaN where the point is against the host's RAM. */
	readonly ramLimitGb: Column;
	/** Metrics in display order: ram, swap, gpu, gpu0, gpu1… Only metrics with at least one point. */
	readonly metrics: readonly MetricSeries[];
	/**
	 * Times going backwards, in input order: judged record to record over the whole log when it names at most one
	 * host, else within each host (two nodes' files read one after the other are not a restart).
	 */
	readonly timeJumps: readonly TimeJump[];
	/** Whether finish() had to sort the records by time. */
	readonly sorted: boolean;
	/** Hosts and GPUs past the caps (fold.ts), each fold's account; empty when nothing was folded. */
	readonly folded: readonly Folded[];
}

/** Series.ramAgainst: the host's total RAM (no cgroup limit in the record), the ranks' cgroup, traintop's own. */
export const RAM_AGAINST = {host: 0, jobCgroup: 1, traintopCgroup: 2} as const;
