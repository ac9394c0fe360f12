import {type RobustTrend, robustTrend} from '../core/robust-trend.js';
import {recordOf, type MetricSeries} from './metric-series.js';
import type {Series} from './series-types.js';

// A metric's trend with the live monitor's robust estimator (core/robust-trend.ts): over the recent part of its last
// hours of data (after the last change point: a spike then a flat hour is flat, not falling), a Theil–Sen slope over
// bins whose floor must agree (a saw-tooth is flat), its direction, and when it would reach the critical threshold —
// said only when there is enough data to mean anything.

export interface Trend {
	/** Points (percent) per hour; 0 when there are fewer than 2 points in the window. */
	readonly slope_per_hour: number;
	/** RAM only: GiB per hour from used_gb. */
	readonly slope_gib_per_hour?: number;
	/** ISO time the fitted line reaches the critical threshold, when it does so in the future. */
	readonly projected_breach_at: string | null;
	readonly direction: 'rising' | 'falling' | 'flat';
	/** Points fitted. */
	readonly points: number;
	/** Seconds from the first to the last point fitted. */
	readonly span_s: number;
	/**
	 * Enough to report a direction: a consistent rise or fall (Mann–Kendall, 1 %) over MIN_DIRECTION_SPAN_S and
	 * MIN_DIRECTION_POINTS, or anything over MIN_TREND_SPAN_S and MIN_TREND_POINTS. Only then is a crossing reported.
	 */
	readonly enough_data: boolean;
	/** ISO time of the first point fitted; null without points. */
	readonly since: string | null;
	/** `since` is where the series last changed (a level shift, a change of slope). */
	readonly after_change: boolean;
	/** The trend window cut the data: the trend is over its last hours, not the whole log. */
	readonly windowed: boolean;
}

/** Slopes smaller than this (points/h, or GiB/h for RAM) are reported as flat. */
const FLAT_SLOPE = 0.05;

/**
 * A flat verdict needs this much data: a slow leak hides in a few minutes of noise. A line fitted to a few seconds
 * of noise "crosses 85 % in three minutes", which is worse than saying nothing.
 */
const MIN_TREND_SPAN_S = 15 * 60;
const MIN_TREND_POINTS = 5;
/** A rise or fall that is consistent needs less: 42.7 → 93.5 % over 3.5 min is climbing, whatever its length. */
const MIN_DIRECTION_SPAN_S = 3 * 60;
const MIN_DIRECTION_POINTS = 6;
/** Mann–Kendall z of a consistent change (one-sided 1 %). */
const CONSISTENT_Z = 2.33;

const iso = (ms: number) => new Date(ms).toISOString();

/** A change over the whole part smaller than this share of its values' interquartile range is flat. */
const FLAT_SHARE_OF_SPREAD = 0.25;

/** The interquartile range of values[from, to): how much the series moves about, whatever its trend. */
function interquartileRange(values: ArrayLike<number>, from: number, to: number): number {
	const sorted = Array.from({length: to - from}, (_, i) => values[from + i]!).sort((a, b) => a - b);
	if (sorted.length < 4) return 0;
	const at = (q: number) => sorted[Math.floor(q * (sorted.length - 1))]!;
	return at(0.75) - at(0.25);
}

/**
 * The direction both the climb and the floor agree on, and only one that moved the series by more than it moves about
 * anyway: a saw-tooth's floor drifts by noise, a tenth of a GiB an hour either way against teeth of 20 GiB, and that
 * is flat, not falling. `spread` is the part's interquartile range in the slope's unit, `hours` its span.
 */
function directionOf(slopePerHour: number, trend: RobustTrend, spread: number, hours: number): Trend['direction'] {
	const agree = Math.sign(trend.floorSlope) === Math.sign(slopePerHour);
	const small = Math.abs(slopePerHour) * hours < FLAT_SHARE_OF_SPREAD * spread;
	if (Math.abs(slopePerHour) < FLAT_SLOPE || !agree || small) return 'flat';
	return slopePerHour > 0 ? 'rising' : 'falling';
}

/** The trend over the last `trendWindowHours` of the metric's data, against the `critical` percent. */
export function trendOf(metric: MetricSeries, series: Series, critical: number, trendWindowHours: number): Trend {
	const n = metric.count;
	const timeOf = (i: number) => series.time[recordOf(metric, i)]!;
	const last = n > 0 ? timeOf(n - 1) : 0;
	let from = n;
	while (from > 0 && timeOf(from - 1) >= last - trendWindowHours * 3_600_000) from--;
	const times = new Float64Array(n - from);
	for (let i = from; i < n; i++) times[i - from] = timeOf(i);
	const percent = robustTrend(times, metric.value.subarray(from, n), 0, times.length);
	const slope = percent.slope * 3_600_000;
	// RAM's GiB over the same recent part (its percent may be of a limit that changed; its GiB are what grew).
	const gib = metric.usedGb
		? robustTrend(times, metric.usedGb.subarray(from, n), percent.start, times.length, {changePoints: false})
		: null;
	const slopeGib = gib ? gib.slope * 3_600_000 : undefined;
	const steer = gib ?? percent;
	const spanS = percent.spanMs / 1000;
	const spread = interquartileRange(metric.usedGb ?? metric.value, from + percent.start, n);
	const direction = directionOf(slopeGib ?? slope, steer, spread, spanS / 3600);
	const consistent =
		direction !== 'flat' &&
		Math.abs(steer.z) >= CONSISTENT_Z &&
		spanS >= MIN_DIRECTION_SPAN_S &&
		percent.points >= MIN_DIRECTION_POINTS;
	const enough = consistent || (spanS >= MIN_TREND_SPAN_S && percent.points >= MIN_TREND_POINTS);
	let projected: string | null = null;
	if (direction === 'rising' && enough && percent.slope > 0 && percent.level < critical) {
		projected = iso(last + (critical - percent.level) / percent.slope);
	}
	return {
		slope_per_hour: slope,
		...(slopeGib === undefined ? {} : {slope_gib_per_hour: slopeGib}),
		projected_breach_at: projected,
		direction,
		points: percent.points,
		span_s: spanS,
		enough_data: enough,
		since: percent.points > 0 ? iso(percent.startTime) : null,
		after_change: percent.changed,
		windowed: from > 0,
	};
}
