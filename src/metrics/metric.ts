import type {CgroupMemoryReading, MetricId, Snapshot} from '../core/types.js';
import type {LogRecord} from '../memlog/record.js';

// What one metric declares once (registry.ts lists them): its id, unit, threshold setting and words, and how it is
// read — from a Snapshot for the memory pane and the log window, from a log record for the headless status line.
// Figures and codes only: the views put them into words.

/** The parts of a Snapshot a metric is read from (the memory pane has these, not a whole Snapshot). */
export type MetricSource = Pick<Snapshot, 'memory' | 'memoryError' | 'cpu' | 'gpu'>;

/** A device's sensors (utilisation, temperature, power); null where the device has none. */
export interface DeviceSensors {
	readonly utilizationPercent: number | null;
	readonly temperatureC: number | null;
	readonly powerDrawW: number | null;
	readonly powerLimitW: number | null;
}

/** One gauge of a metric at one snapshot: `ram`, or one device's `gpu3`. */
export interface GaugeReading {
	/** The Monitor's id, under which its level, peak and history are kept. */
	readonly metric: MetricId;
	/** The device's index for a per-device metric; null for a host metric. */
	readonly index: number | null;
	readonly percent: number | null;
	readonly usedBytes: number | null;
	readonly totalBytes: number | null;
	readonly sensors: DeviceSensors | null;
}

/**
 * Why a host metric has no gauge now: `none` (this machine has none: no swap), `unread` (its source has not been
 * read), `failed` (the last read failed: the snapshot's `memoryError` says why).
 */
export type Missing = 'none' | 'unread' | 'failed';

/** One field of the headless status line, as figures: read from a log record, worded by headless/format.ts. */
export type StatusField =
	| {
			readonly field: string;
			/** The Monitor's id whose level is shown after the value; null: the metric is not judged. */
			readonly metric: MetricId | null;
			readonly value: number | null;
			/** The window's peak (shown only when above the value). */
			readonly peak: number | null;
			/** The cgroup limit the value is judged against, when it is not the host's total. */
			readonly limit?: {readonly scope: CgroupMemoryReading['scope']; readonly limitBytes: number};
			/** The host's own figure beside a value judged against a limit. */
			readonly host?: {readonly percent: number; readonly totalBytes: number};
			readonly utilizationPercent?: number | null;
	  }
	/** No value: a code written as is (`n/a`, `none`, the GPU reader's status). */
	| {readonly field: string; readonly code: string};

/** What the log window knows beyond the snapshots: the run's global lines, for entries that differ from them. */
export interface LogContext {
	/** The run's global GPU threshold (`--gpu-threshold`), or null to write no GPU's own line. */
	readonly gpuThreshold: number | null;
}

/**
 * A metric's part of the memory-log record: `start` a window's state, `fold` each sample into it (peaks), `write`
 * the record's keys from it and the window's last snapshot. Method syntax: each entry has its own state type.
 */
export interface LogSection<State> {
	start(): State;
	fold(state: State, snapshot: Snapshot): void;
	write(state: State, last: Snapshot, context: LogContext): Partial<LogRecord>;
}

/** The setting that holds a metric's critical line. */
export type ThresholdSetting = 'ramThreshold' | 'swapThreshold' | 'gpuThreshold';

export interface MetricEntry<State = unknown> {
	/** `ram`, `swap`, `cpu`; a per-device metric's family (`gpu`: its devices are `gpu0`, `gpu1`…). */
	readonly id: string;
	readonly perDevice: boolean;
	readonly unit: 'percent';
	/**
	 * The setting of its critical line (the Monitor judges it; alerts), with the per-device overrides' setting for a
	 * per-device metric (`--gpu-thresholds`, by uuid); null: shown and logged, not judged.
	 */
	readonly threshold: {readonly setting: ThresholdSetting; readonly perDevice?: 'gpuThresholds'} | null;
	readonly words: {
		/** The memory pane's gauge label (`RAM`; a device's is this and its index: `GPU0`); null: no gauge there. */
		readonly pane: string | null;
		/** The headless status line's field (`ram`; a device's `gpu0`); null: not on the line. */
		readonly status: string | null;
		/** The keys it writes in a memory-log record (a stable contract: README "Memory log format"). */
		readonly log: readonly (keyof LogRecord)[];
	};
	/** Its gauges in this snapshot (one per device for a per-device metric), or why there is none. */
	gauges(source: MetricSource): readonly GaugeReading[] | Missing;
	/** Its fields of the headless status line; empty when the record does not carry it. */
	status(record: LogRecord): readonly StatusField[];
	readonly log: LogSection<State>;
}

/** Keeps an entry's own state type inside it while the registry lists them side by side. */
export function defineMetric<State>(entry: MetricEntry<State>): MetricEntry {
	return entry as unknown as MetricEntry;
}

/** The higher of the two; `current` when the value is unknown. */
export function maxOf(current: number | null, value: number | null | undefined): number | null {
	if (value === null || value === undefined) return current;
	return current === null || value > current ? value : current;
}
