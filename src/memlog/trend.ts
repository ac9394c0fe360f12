import {recordOf, type MetricSeries} from './metric-series.js';
import type {Series} from './series-types.js';

// A metric's trend: a least-squares line over its last hours of data, its direction, and when it
// would reach the critical threshold, said only when there is enough data to mean anything.

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
	/** Seconds from the first to the last point fitted (the data's own span when the window holds it all). */
	readonly span_s: number;
	/** At least MIN_TREND_HOURS and MIN_TREND_POINTS: only then is a direction or a crossing reported. */
	readonly enough_data: boolean;
}

/** Slopes smaller than this (points/h, or GiB/h for RAM) are reported as flat. */
const FLAT_SLOPE = 0.05;

/**
 * A trend needs this much data before it may project anything: a line fitted to a few seconds of
 * noise "crosses 85 % in three minutes", which is worse than saying nothing.
 */
const MIN_TREND_HOURS = 0.25;
const MIN_TREND_POINTS = 5;

const iso = (ms: number) => new Date(ms).toISOString();

function leastSquares(
	xs: (i: number) => number,
	ys: Float32Array,
	from: number,
	to: number,
): {slope: number; intercept: number} | null {
	const n = to - from;
	if (n < 2) return null;
	let mx = 0;
	let my = 0;
	for (let i = from; i < to; i++) {
		mx += xs(i);
		my += ys[i]!;
	}
	mx /= n;
	my /= n;
	let sxy = 0;
	let sxx = 0;
	for (let i = from; i < to; i++) {
		const dx = xs(i) - mx;
		sxy += dx * (ys[i]! - my);
		sxx += dx * dx;
	}
	if (sxx === 0) return null;
	const slope = sxy / sxx;
	return {slope, intercept: my - slope * mx};
}

/** The trend over the last `trendWindowHours` of the metric's data, against the `critical` percent. */
export function trendOf(metric: MetricSeries, series: Series, critical: number, trendWindowHours: number): Trend {
	const n = metric.count;
	// Hours since the metric's first point (small numbers keep the least squares well conditioned).
	const origin = n > 0 ? series.time[recordOf(metric, 0)]! : 0;
	const hours = (i: number) => (series.time[recordOf(metric, i)]! - origin) / 3_600_000;
	const lastHour = n > 0 ? hours(n - 1) : 0;
	let from = n;
	while (from > 0 && hours(from - 1) >= lastHour - trendWindowHours) from--;
	const line = leastSquares(hours, metric.value, from, n);
	const slope = line?.slope ?? 0;
	// From the timestamps themselves, not the hours above: the report states it as the Span line states the log's.
	const spanS =
		n - from >= 2 ? (series.time[recordOf(metric, n - 1)]! - series.time[recordOf(metric, from)]!) / 1000 : 0;
	const enough = spanS >= MIN_TREND_HOURS * 3600 && n - from >= MIN_TREND_POINTS;
	let projected: string | null = null;
	if (line && slope > 0 && enough) {
		const now = line.slope * lastHour + line.intercept;
		if (now < critical) {
			const crossHour = (critical - line.intercept) / line.slope;
			projected = iso(origin + crossHour * 3_600_000);
		}
	}
	let slopeGib: number | undefined;
	if (metric.usedGb) slopeGib = leastSquares(hours, metric.usedGb, from, n)?.slope ?? 0;
	const steepness = slopeGib ?? slope;
	const direction = Math.abs(steepness) < FLAT_SLOPE ? 'flat' : steepness > 0 ? 'rising' : 'falling';
	return {
		slope_per_hour: slope,
		...(slopeGib === undefined ? {} : {slope_gib_per_hour: slopeGib}),
		projected_breach_at: projected,
		direction,
		points: n - from,
		span_s: spanS,
		enough_data: enough,
	};
}
