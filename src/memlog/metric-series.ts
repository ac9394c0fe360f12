// One metric's numeric series out of a memory log (ram, swap, a GPU): what the collector (series.ts) builds and
// every report reads. A leaf: the builders (metric-builder.ts) and the folding (fold.ts) import it.

/** Which threshold rule a metric is judged by. */
export type MetricKind = 'ram' | 'swap' | 'gpu';

export interface MetricSeries {
	/** `ram`, `swap`, `gpu` (aggregate) or `gpu0`, `gpu1`… by index. */
	readonly id: string;
	readonly kind: MetricKind;
	/** For a single GPU: its uuid / name when a record gave one. */
	readonly uuid: string | null;
	readonly name: string | null;
	/** Number of points; the arrays below have exactly this length. */
	readonly count: number;
	/**
	 * Index of each point's record in Series (times, intervals, hosts), ascending; null when the
	 * metric is in every record (point i is record i). Use recordOf().
	 */
	readonly record: Uint32Array | null;
	/**
	 * Percent. Float32 (7 significant digits, far beyond the logs' 0.1 %) halves the memory of a
	 * million-record log; compare against thresholds with Math.fround.
	 */
	readonly value: Float32Array;
	/** The record's peak percent when present, else the value (the same array when no record had one). */
	readonly peak: Float32Array;
	/** RAM only: GiB used (for the trend in GiB/h). */
	readonly usedGb: Float32Array | null;
	/**
	 * A single GPU only: its own critical threshold per point as the record gave it (`gpus[].threshold`), NaN where
	 * the record gave none (the global GPU threshold judges that point); null when no record gave one.
	 */
	readonly threshold: Float32Array | null;
	/**
	 * A single GPU's uuid and name as each host's records gave them, by host id + 1 (0: records that name no host):
	 * GPU 0 of one node is not GPU 0 of another, so splitting by host (by-host.ts) takes these, not uuid/name.
	 */
	readonly hostUuid: readonly (string | undefined)[];
	readonly hostName: readonly (string | undefined)[];
}

/** The record index of point i of a metric. */
export function recordOf(metric: MetricSeries, i: number): number {
	return metric.record ? metric.record[i]! : i;
}
