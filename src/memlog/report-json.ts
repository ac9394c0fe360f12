import type {Analysis, AnalysisThresholds, MetricAnalysis, Restart} from './analyze.js';
import type {LogAnalysis} from './analyze-log.js';
import type {ThresholdSource} from './gpu-lines.js';
import type {RamBasis} from './ram-basis.js';
import type {SkippedItem} from './report-parts.js';
import {metricRank} from './series.js';

// The stable JSON of `traintop --analyze --json`. A log of one host keeps the shape it always had; a log of
// several adds `hosts: {<host>: {…that host's fields…}}`, and its top-level fields speak for the whole log.

export interface MetricJson {
	readonly min: number;
	readonly mean: number;
	readonly p50: number;
	readonly p95: number;
	readonly max: number;
	readonly time_above_threshold_s: number;
	readonly episodes: {start: string; end: string; duration_s: number; peak: number}[];
	readonly trend: {slope_per_hour: number; slope_gib_per_hour?: number; projected_breach_at: string | null};
	/**
	 * A single GPU (gpu0, gpu1…) judged by a line of its own: the critical percent (as of its last record), where it
	 * came from (`log`: the log's per-GPU line; `flag`: `--gpu-thresholds` given to --analyze; `global`: the GPU
	 * threshold, after records that had a line), and `[lowest, highest]` when the line changed along the log. Absent
	 * where `thresholds` judged the metric throughout: a log without per-GPU lines keeps the JSON it always had.
	 */
	readonly threshold?: number;
	readonly threshold_from?: ThresholdSource;
	readonly threshold_range?: readonly [number, number];
	/** `ram` in a log with a cgroup limit: what its percent is against, per record (host RAM where none). */
	readonly against?: RamBasis;
	/** Top level of a log of several hosts: the host these figures are of (the one where the metric peaked highest). */
	readonly host?: string;
}

interface RestartJson extends Pick<Restart, 'time' | 'reason' | 'job_id' | 'restart_count' | 'previous_restart_count'> {
	/** The host it happened on, in a log of several hosts; null in a log of one (as it always was). */
	readonly host: string | null;
}

/** One host's part: what a log of one host prints, less what belongs to the whole log (thresholds, skipped lines). */
interface HostJson {
	readonly records: number;
	readonly first: string | null;
	readonly last: string | null;
	readonly breached: boolean;
	readonly metrics: Record<string, MetricJson>;
	readonly gaps: {start: string; end: string; host?: string}[];
	/** A requeue's with its SLURM job and its restart count before and after. */
	readonly restarts: RestartJson[];
}

export interface AnalysisJson extends HostJson {
	readonly thresholds: AnalysisThresholds;
	readonly skipped: SkippedItem[];
	/** Only in a log of several hosts: each host's figures, worst host first. */
	readonly hosts?: Record<string, HostJson>;
}

/** Rounded for a stable, readable JSON (4 decimals is far below the logs' precision). */
const r4 = (x: number) => (Number.isFinite(x) ? Math.round(x * 1e4) / 1e4 : null);

function metricJson(m: MetricAnalysis): MetricJson {
	return {
		min: r4(m.min) as number,
		mean: r4(m.mean) as number,
		p50: r4(m.p50) as number,
		p95: r4(m.p95) as number,
		max: r4(m.max) as number,
		time_above_threshold_s: r4(m.time_above_threshold_s) as number,
		episodes: m.episodes.map(e => ({
			start: e.start,
			end: e.end,
			duration_s: r4(e.duration_s) as number,
			peak: e.peak,
		})),
		trend: {
			slope_per_hour: r4(m.trend.slope_per_hour) as number,
			...(m.trend.slope_gib_per_hour === undefined
				? {}
				: {slope_gib_per_hour: r4(m.trend.slope_gib_per_hour) as number}),
			projected_breach_at: m.trend.projected_breach_at,
		},
		...(m.threshold_source !== 'global' || m.threshold_min !== m.threshold_max
			? {
					threshold: m.threshold,
					threshold_from: m.threshold_source,
					...(m.threshold_min === m.threshold_max
						? {}
						: {threshold_range: [m.threshold_min, m.threshold_max] as const}),
				}
			: {}),
		// Only where a record had a cgroup limit: a log without one keeps the JSON it always had.
		...(m.ram_basis && m.ram_basis.cgroup_samples > 0 ? {against: m.ram_basis} : {}),
	};
}

function hostJson(analysis: Analysis, host: string | null): HostJson {
	const metrics: Record<string, MetricJson> = {};
	for (const m of analysis.metrics) metrics[m.id] = metricJson(m);
	return {
		records: analysis.records,
		first: analysis.first,
		last: analysis.last,
		breached: analysis.breached,
		metrics,
		gaps: analysis.gaps.map(g => ({start: g.start, end: g.end})),
		restarts: analysis.restarts.map(({time, reason, job_id, restart_count, previous_restart_count}) =>
			reason === 'requeue' ? {time, reason, host, job_id, restart_count, previous_restart_count} : {time, reason, host},
		),
	};
}

const skippedJson = (skipped: readonly SkippedItem[]) =>
	skipped.map(s => ({file: s.file, line: s.line, reason: s.reason}));

/** The stable JSON shape of one host's analysis (a log of one host). */
export function analysisJson(analysis: Analysis, extra: {skipped: readonly SkippedItem[]}): AnalysisJson {
	const {records, first, last, breached, metrics, gaps, restarts} = hostJson(analysis, null);
	return {
		records,
		first,
		last,
		breached,
		thresholds: analysis.thresholds,
		metrics,
		skipped: skippedJson(extra.skipped),
		gaps,
		restarts,
	};
}

/**
 * The JSON of a whole log. One host: analysisJson's shape, unchanged. Several: `records` is their sum, `first` and
 * `last` the earliest and latest record, `breached` any host's, `metrics` per metric the figures of the host where
 * it peaked highest (its `host` says which), `gaps` and `restarts` every host's in time order (each with `host`),
 * and `hosts` each host's own figures, worst host first.
 */
export function logJson(log: LogAnalysis, extra: {skipped: readonly SkippedItem[]}): AnalysisJson {
	const [only] = log.hosts;
	if (log.hosts.length === 1 && only) return analysisJson(only.analysis, extra);
	const hosts: Record<string, HostJson> = {};
	const worst = new Map<string, {host: string; metric: MetricAnalysis}>();
	for (const {host: name, analysis} of log.hosts) {
		const host = name ?? '';
		hosts[host] = hostJson(analysis, host);
		for (const metric of analysis.metrics) {
			const seen = worst.get(metric.id);
			if (!seen || metric.max > seen.metric.max) worst.set(metric.id, {host, metric});
		}
	}
	const metrics: Record<string, MetricJson> = {};
	for (const id of [...worst.keys()].sort((a, b) => metricRank(a) - metricRank(b))) {
		const {host, metric} = worst.get(id)!;
		metrics[id] = {...metricJson(metric), host};
	}
	const all = Object.values(hosts);
	const byTime = <T>(items: T[], time: (item: T) => string) =>
		items.sort((a, b) => Date.parse(time(a)) - Date.parse(time(b)));
	return {
		records: log.records,
		first: log.first,
		last: log.last,
		breached: log.breached,
		thresholds: log.thresholds,
		metrics,
		skipped: skippedJson(extra.skipped),
		gaps: byTime(
			Object.entries(hosts).flatMap(([host, h]) => h.gaps.map(g => ({...g, host}))),
			g => g.start,
		),
		restarts: byTime(
			all.flatMap(h => h.restarts),
			r => r.time,
		),
		hosts,
	};
}
