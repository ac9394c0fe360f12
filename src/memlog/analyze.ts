import type {ThresholdRule} from '../core/thresholds.js';
import {printable} from '../format/printable.js';
import {timeAbove, type Episode} from './episodes.js';
import type {Folded} from './fold.js';
import {OTHER_GPUS_ID} from './fold.js';
import {type GpuLineOptions, type MetricLines, metricLines, type ThresholdSource} from './gpu-lines.js';
import {maxOf, percentile} from './percentile.js';
import {type RamBasis, ramBasisOf, ramLabel} from './ram-basis.js';
import {schedulerNameOf} from './record-keys.js';
import {type MetricKind, type MetricSeries, recordOf} from './metric-series.js';
import type {Series} from './series-types.js';
import {trendOf, type Trend} from './trend.js';

// Post-mortem statistics of a memory log: per-metric summary, time above the critical threshold,
// episodes, a least-squares trend with its projected breach, and the log's gaps and restarts.
// Episodes (episodes.ts) and the trend (trend.ts) are computed in their own modules.

export interface AnalysisThresholds {
	readonly ram: ThresholdRule;
	readonly swap: ThresholdRule;
	readonly gpu: ThresholdRule;
}

export interface AnalyzeOptions {
	/** The trend is fitted over the last this many hours of data (default 6). */
	readonly trendWindowHours?: number;
	/** What the user gave for single GPUs (gpu-lines.ts): their lines win over the log's per-GPU ones. */
	readonly gpuLines?: GpuLineOptions;
}

export interface MetricAnalysis {
	readonly id: string;
	readonly kind: MetricKind;
	/** e.g. "RAM", "GPU (all)", "GPU 0 NVIDIA A100 (GPU-5f…)". */
	readonly label: string;
	readonly uuid: string | null;
	readonly name: string | null;
	/** The critical percent as of the metric's last record: the one its trend projects against. */
	readonly threshold: number;
	/** Where it came from: a single GPU may be judged by the log's per-GPU line, or by `--gpu-thresholds`. */
	readonly threshold_source: ThresholdSource;
	/** The lowest and highest line that judged a record (they differ where the log's per-GPU line changed). */
	readonly threshold_min: number;
	readonly threshold_max: number;
	/** The highest peak ÷ the line of its record: 1 or more is a breach. */
	readonly worst_ratio: number;
	readonly samples: number;
	/** Over values. */
	readonly min: number;
	readonly mean: number;
	/** Over peaks (linear interpolation between closest ranks). */
	readonly p50: number;
	readonly p95: number;
	readonly max: number;
	readonly time_above_threshold_s: number;
	readonly episodes: readonly Episode[];
	readonly trend: Trend;
	/** Max peak per time bucket over the whole log (SPARK_BUCKETS buckets); null where no data. */
	readonly sparkline: readonly (number | null)[];
	/** `ram` only: what its percent is against (the job's cgroup limit, the host's RAM, or both in turn). */
	readonly ram_basis?: RamBasis;
}

export interface Gap {
	readonly start: string;
	readonly end: string;
	readonly duration_s: number;
}

export interface Restart {
	/** ISO time of the first record after the restart. */
	readonly time: string;
	/**
	 * time: time went back; requeue: the scheduler's restart count of its job grew (a requeue). Judged within one
	 * host: another host's records are its own series (by-host.ts), not a restart of this one.
	 */
	readonly reason: 'time' | 'requeue';
	/** For time going backwards: the time of the record before. */
	readonly previous_time: string | null;
	/**
	 * For a requeue: the scheduler (its name, in words), the job, its restart count in this record and in the last
	 * record before naming the job.
	 */
	readonly scheduler?: string;
	readonly job_id?: string;
	readonly restart_count?: number;
	readonly previous_restart_count?: number;
}

export interface Analysis {
	readonly records: number;
	readonly first: string | null;
	readonly last: string | null;
	/** The typical record spacing, seconds: the median gap between consecutive records. */
	readonly median_gap_s: number;
	readonly hosts: readonly string[];
	readonly metrics: readonly MetricAnalysis[];
	readonly gaps: readonly Gap[];
	readonly restarts: readonly Restart[];
	/** Any metric at or above its threshold at any point. */
	readonly breached: boolean;
	readonly thresholds: AnalysisThresholds;
	/** Hosts and GPUs past the caps, as the log's series folded them (fold.ts); empty when none. */
	readonly folded: readonly Folded[];
}

/** Buckets of MetricAnalysis.sparkline. */
const SPARK_BUCKETS = 40;

const iso = (ms: number) => new Date(ms).toISOString();

/** `scratch` holds at least n − 1 values (Float32: exact for gaps up to 4.6 h in ms). */
function medianGapSeconds(time: Float64Array, scratch: Float32Array): number {
	const n = time.length;
	if (n < 2) return 0;
	const gaps = scratch;
	let k = 0;
	for (let i = 1; i < n; i++) {
		const d = time[i]! - time[i - 1]!;
		if (d > 0) gaps[k++] = d;
	}
	if (k === 0) return 0;
	return percentile(gaps.subarray(0, k), 0.5) / 1000;
}

function labelOf(metric: MetricSeries, basis: RamBasis | null): string {
	if (metric.id === 'ram') return basis ? ramLabel(basis) : 'RAM';
	if (metric.id === 'swap') return 'Swap';
	if (metric.id === 'gpu') return 'GPU (all)';
	if (metric.id === OTHER_GPUS_ID) return 'GPU (other)';
	// The name and uuid are the log's words (nvidia-smi's, or whatever wrote the log): shown, never obeyed.
	let label = `GPU ${metric.id.slice(3)}`;
	if (metric.name) label += ` ${printable(metric.name)}`;
	if (metric.uuid) label += ` (${printable(metric.uuid)})`;
	return label;
}

function analyzeMetric(
	metric: MetricSeries,
	series: Series,
	lines: MetricLines,
	medianGap: number,
	trendWindowHours: number,
	scratch: Float32Array,
): MetricAnalysis {
	const n = metric.count;
	const critical = lines.last;
	let min = Number.POSITIVE_INFINITY;
	let sum = 0;
	for (let i = 0; i < n; i++) {
		const v = metric.value[i]!;
		if (v < min) min = v;
		sum += v;
	}
	// Percentiles reorder a scratch array shared by all metrics: no million-point copy per metric.
	const peaks = scratch.subarray(0, n);
	peaks.set(metric.peak.subarray(0, n));
	const max = maxOf(peaks);
	const p50 = percentile(peaks, 0.5);
	const p95 = percentile(peaks, 0.95);

	// A point's window in seconds: its record's interval, else the log's typical spacing.
	const durationOf = (i: number) => {
		const interval = series.interval.at(recordOf(metric, i));
		return Number.isNaN(interval) ? medianGap : interval;
	};
	const {above, episodes, worst} = timeAbove(metric, series, lines.at, durationOf);

	const trend = trendOf(metric, series, critical, trendWindowHours);

	// Sparkline: bucketed max of the peaks over the whole log's time span.
	const spark = new Float64Array(SPARK_BUCKETS).fill(Number.NaN);
	const t0 = series.time[0] ?? 0;
	const span = (series.time[series.records - 1] ?? t0) - t0;
	for (let i = 0; i < n; i++) {
		// A sample covers its window [t − duration, t]: mark every bucket it overlaps, so a sparse
		// log shows a continuous line and only real gaps stay blank.
		const t = series.time[recordOf(metric, i)]!;
		const bucket = (x: number) =>
			span > 0 ? Math.max(0, Math.min(SPARK_BUCKETS - 1, Math.floor(((x - t0) / span) * SPARK_BUCKETS))) : 0;
		const p = metric.peak[i]!;
		for (let b = bucket(t - durationOf(i) * 1000 + 1); b <= bucket(t); b++) if (!(spark[b]! >= p)) spark[b] = p;
	}
	const sparkline = Array.from(spark, v => (Number.isNaN(v) ? null : v));
	const basis = metric.id === 'ram' ? ramBasisOf(metric, series) : null;

	return {
		id: metric.id,
		kind: metric.kind,
		label: labelOf(metric, basis),
		uuid: metric.uuid,
		name: metric.name,
		threshold: critical,
		threshold_source: lines.source,
		threshold_min: lines.min,
		threshold_max: lines.max,
		worst_ratio: worst,
		samples: n,
		min,
		mean: sum / n,
		p50,
		p95,
		max,
		time_above_threshold_s: above,
		episodes,
		trend,
		sparkline: span > 0 ? sparkline : sparkline.slice(0, 1),
		...(basis ? {ram_basis: basis} : {}),
	};
}

/**
 * Requeues: after a requeue or a preemption the scheduler's job keeps its id and its restart count grows by one.
 * Compared with the last record that named the same job, so records without one (before the scheduler's first
 * answer, an older traintop) in between do not hide it.
 */
function requeues(series: Series): Restart[] {
	const out: Restart[] = [];
	let lastJob = -1;
	let lastRestarts = -1;
	for (let i = 0; i < series.records; i++) {
		const job = series.schedulerJob.at(i);
		if (job < 0) continue;
		const restarts = series.schedulerRestarts.at(i);
		if (job === lastJob && restarts > lastRestarts) {
			out.push({
				time: iso(series.time[i]!),
				reason: 'requeue',
				previous_time: null,
				scheduler: schedulerNameOf(series.schedulerJobs[job]!.key),
				job_id: series.schedulerJobs[job]!.id,
				restart_count: restarts,
				previous_restart_count: lastRestarts,
			});
		}
		lastJob = job;
		lastRestarts = restarts;
	}
	return out;
}

/**
 * Analyse one host's series (a log of one host is one; analyze-log.ts splits the others) against the live
 * monitor's threshold rules.
 */
export function analyze(series: Series, thresholds: AnalysisThresholds, options: AnalyzeOptions = {}): Analysis {
	const trendWindowHours = options.trendWindowHours ?? 6;
	const n = series.records;
	const time = series.time;
	// One scratch array for every sort (gaps, then each metric's peaks): a million-record log
	// sorts several million-point arrays, and copies of each would pile up until the next GC.
	const scratch = new Float32Array(Math.max(n, ...series.metrics.map(m => m.count)));
	const medianGap = medianGapSeconds(time, scratch);
	const metrics = series.metrics.map(m => {
		const lines = metricLines(m, thresholds[m.kind].critical, options.gpuLines);
		return analyzeMetric(m, series, lines, medianGap, trendWindowHours, scratch);
	});

	const gaps: Gap[] = [];
	const restarts: Restart[] = [];
	for (let i = 1; i < n; i++) {
		const t0 = time[i - 1]!;
		const t1 = time[i]!;
		const recorded = series.interval.at(i);
		const interval = Number.isNaN(recorded) ? medianGap : recorded;
		if (interval > 0 && t1 - t0 > 3 * interval * 1000) {
			gaps.push({start: iso(t0), end: iso(t1), duration_s: (t1 - t0) / 1000});
		}
	}
	restarts.push(...requeues(series));
	for (const jump of series.timeJumps) {
		restarts.push({
			time: iso(jump.time),
			reason: 'time',
			previous_time: iso(jump.previous),
		});
	}
	restarts.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));

	return {
		records: n,
		first: n > 0 ? iso(time[0]!) : null,
		last: n > 0 ? iso(time[n - 1]!) : null,
		median_gap_s: medianGap,
		hosts: series.hosts,
		metrics,
		gaps,
		restarts,
		breached: metrics.some(m => m.episodes.length > 0),
		thresholds,
		folded: series.folded,
	};
}
