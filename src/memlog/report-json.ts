import type {Folded} from './fold.js';
import type {Analysis, AnalysisThresholds, MetricAnalysis, Restart} from './analyze.js';
import type {LogAnalysis} from './analyze-log.js';
import type {ThresholdSource} from './gpu-lines.js';
import {roundGib, roundPercent, roundSeconds} from './log-rounding.js';
import type {RamBasis} from './ram-basis.js';
import type {SkippedItem} from './report-parts.js';
import type {Trend} from './trend.js';
import {metricRank} from './series.js';

// The stable JSON of `traintop --analyze --json`. A log of one host keeps the shape it always had; a log of
// several adds `hosts: {<host>: {…that host's fields…}}`, and its top-level fields speak for the whole log. Every key
// is snake_case, and every number reads as the log writes it (log-rounding.ts), whatever float32 the columns held.

/** `schema_version` of the JSON: raised when a key is renamed or removed (adding one keeps it). */
export const ANALYZE_JSON_SCHEMA_VERSION = 1;

/** A threshold rule as the JSON spells it: the same keys as the config file's, in snake_case. */
export interface ThresholdRuleJson {
	readonly critical: number;
	readonly warn_margin: number;
	readonly hysteresis: number;
}

export interface MetricJson {
	readonly min: number;
	readonly mean: number;
	readonly p50: number;
	readonly p95: number;
	readonly max: number;
	readonly time_above_threshold_s: number;
	readonly episodes: {start: string; end: string; duration_s: number; peak: number}[];
	readonly trend: {
		slope_per_hour: number;
		slope_gib_per_hour?: number;
		projected_breach_at: string | null;
		/** `rising`, `falling` or `flat`; said only when `enough_data`. */
		direction: Trend['direction'];
		enough_data: boolean;
		/** The part of the log the trend is over: its points, seconds, first time, and whether a change put it there. */
		points: number;
		span_s: number;
		since: string | null;
		after_change: boolean;
	};
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
	/** A requeue's with its scheduler's job and its restart count before and after. */
	readonly restarts: RestartJson[];
}

export interface AnalysisJson extends HostJson {
	readonly thresholds: Record<keyof AnalysisThresholds, ThresholdRuleJson>;
	readonly skipped: SkippedItem[];
	/** Only in a log of several hosts: each host's figures, worst host first. */
	readonly hosts?: Record<string, HostJson>;
	/** Only when hosts or GPUs past the caps went into one series (fold.ts): how many, and into which. */
	readonly folded?: readonly Folded[];
}

/** `folded` only where something was: a log within the caps keeps the JSON it always had. */
const foldedJson = (folded: readonly Folded[]) => (folded.length > 0 ? {folded} : {});

/** A number rounded by `round`; one that is not finite stays NaN, which JSON.stringify writes as null. */
const finite =
	(round: (x: number) => number) =>
	(x: number): number =>
		Number.isFinite(x) ? round(x) : Number.NaN;
const percent = finite(roundPercent);
const seconds = finite(roundSeconds);
/**
 * Slopes are rates no log line holds: 4 decimals, since a leak of 0.004 %/h (35 % a year) would round to 0 at the
 * log's 2, though its projected breach is printed beside it.
 */
const slope = finite(x => Math.round(x * 1e4) / 1e4);

const ruleJson = (rule: AnalysisThresholds['ram']): ThresholdRuleJson => ({
	critical: rule.critical,
	warn_margin: rule.warnMargin,
	hysteresis: rule.hysteresis,
});

const thresholdsJson = (t: AnalysisThresholds) => ({
	ram: ruleJson(t.ram),
	swap: ruleJson(t.swap),
	gpu: ruleJson(t.gpu),
});

const againstJson = (basis: RamBasis): RamBasis => ({
	...basis,
	limit_min_gb: basis.limit_min_gb === null ? null : roundGib(basis.limit_min_gb),
	limit_max_gb: basis.limit_max_gb === null ? null : roundGib(basis.limit_max_gb),
});

function metricJson(m: MetricAnalysis): MetricJson {
	return {
		min: percent(m.min),
		mean: percent(m.mean),
		p50: percent(m.p50),
		p95: percent(m.p95),
		max: percent(m.max),
		time_above_threshold_s: seconds(m.time_above_threshold_s),
		episodes: m.episodes.map(e => ({
			start: e.start,
			end: e.end,
			duration_s: seconds(e.duration_s),
			peak: percent(e.peak),
		})),
		trend: {
			slope_per_hour: slope(m.trend.slope_per_hour),
			...(m.trend.slope_gib_per_hour === undefined ? {} : {slope_gib_per_hour: slope(m.trend.slope_gib_per_hour)}),
			projected_breach_at: m.trend.projected_breach_at,
			direction: m.trend.direction,
			enough_data: m.trend.enough_data,
			points: m.trend.points,
			span_s: seconds(m.trend.span_s),
			since: m.trend.since,
			after_change: m.trend.after_change,
		},
		...(m.threshold_source !== 'global' || m.threshold_min !== m.threshold_max
			? {
					threshold: percent(m.threshold),
					threshold_from: m.threshold_source,
					...(m.threshold_min === m.threshold_max
						? {}
						: {threshold_range: [percent(m.threshold_min), percent(m.threshold_max)] as const}),
				}
			: {}),
		// Only where a record had a cgroup limit: a log without one keeps the JSON it always had.
		...(m.ram_basis && m.ram_basis.cgroup_samples > 0 ? {against: againstJson(m.ram_basis)} : {}),
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
		thresholds: thresholdsJson(analysis.thresholds),
		metrics,
		skipped: skippedJson(extra.skipped),
		gaps,
		restarts,
		...foldedJson(analysis.folded),
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
		thresholds: thresholdsJson(log.thresholds),
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
		...foldedJson(log.folded),
	};
}
