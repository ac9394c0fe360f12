import type {MetricSeries} from './metric-series.js';

// Which critical line judges each point of a metric in `--analyze`. RAM, swap and the GPUs as a whole: the one
// global rule. A single GPU: a `--gpu-thresholds` entry given to --analyze for its uuid (what the user asks now);
// else its own line as each record gave it (`gpus[].threshold`: what the live alerts judged it by then, which
// beat the run's `--gpu-threshold` there too); else the global GPU threshold (`--gpu-threshold`, or its default).
// Flag > log > default, for each GPU; the log holds no global line, so `--gpu-threshold` judges the rest as before.

/** Where a metric's threshold came from: `--gpu-thresholds` given to --analyze, the log's per-GPU line, the global. */
export type ThresholdSource = 'flag' | 'log' | 'global';

/** What the user gave --analyze for the GPUs beside the global rule. */
export interface GpuLineOptions {
	/** `--gpu-thresholds` (or the config file's `gpuThresholds`): a GPU's critical percent by uuid. */
	readonly byUuid?: ReadonlyMap<string, number>;
}

export interface MetricLines {
	/** The critical percent that judges point i. */
	at(i: number): number;
	/** As of the metric's last point: the one the report shows and the trend projects against. */
	readonly last: number;
	/** Where `last` came from. */
	readonly source: ThresholdSource;
	/** The lowest and the highest line over the points: equal when one line judged them all. */
	readonly min: number;
	readonly max: number;
}

/** One line for every point. */
function constant(critical: number, source: ThresholdSource): MetricLines {
	return {at: () => critical, last: critical, source, min: critical, max: critical};
}

/** A line the log may hold: a percentage; anything else (0, negative) is no line, and the global one judges. */
const isLine = (x: number) => x > 0 && x <= 100;

/** The lines judging `metric`, whose kind's global rule is critical at `global`. */
export function metricLines(metric: MetricSeries, global: number, options: GpuLineOptions = {}): MetricLines {
	// A single GPU (gpu0, gpu1…), not the aggregate: only those have a uuid and a line of their own.
	if (metric.kind !== 'gpu' || metric.id === 'gpu') return constant(global, 'global');
	const own = metric.uuid === null ? undefined : options.byUuid?.get(metric.uuid);
	if (own !== undefined) return constant(own, 'flag');
	const logged = metric.threshold;
	if (logged === null) return constant(global, 'global');
	// Stored as float32, as the values are (and compared so); shown as the percent the record wrote (7 digits).
	const lineAt = (i: number) => {
		const x = logged[i]!;
		return isLine(x) ? x : global;
	};
	const shown = (x: number) => (x === global ? x : Number(x.toPrecision(7)));
	let min = Number.POSITIVE_INFINITY;
	let max = Number.NEGATIVE_INFINITY;
	for (let i = 0; i < metric.count; i++) {
		const line = lineAt(i);
		if (line < min) min = line;
		if (line > max) max = line;
	}
	const lastPoint = metric.count - 1;
	return {
		at: lineAt,
		last: shown(lineAt(lastPoint)),
		source: isLine(logged[lastPoint]!) ? 'log' : 'global',
		min: shown(min),
		max: shown(max),
	};
}
