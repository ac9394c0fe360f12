// Where a series last changed: a level shift (a spike that then stays, a step down) or a change of slope (a warm-up
// ramp that levels off, a flat stretch that starts to climb). A two-segment least-squares search: every split of
// the range into two independent lines is scored by their summed squared error, which prefix sums give in O(1) per
// candidate, so one search is O(n). A split is taken only when it cuts the one line's error to a quarter or less:
// noise, and a saw-tooth with a full tooth before its last one (whose one-line error falls by at most half), never
// pass. The search repeats on the part after each split taken, so the result is the last change.

/** Splits are looked for between groups of consecutive points: a long log is searched at ≤ 256 places. */
const MAX_GROUPS = 256;

/** A split is taken when the two lines' error is at most this share of the one line's. */
const ACCEPT_RATIO = 0.25;

/** Below this share of the series' variance the one line already fits: nothing to cut (a perfect line, a flat run). */
const FITS = 1e-12;

export interface ChangePoint {
	/** Index of the first point of the recent part (`from` when no change was found). */
	readonly start: number;
	/** Whether a change was found (start > from). */
	readonly changed: boolean;
}

/** Per group prefix sums of count, x, y, x², xy, y² (x in units of the span, y about the first value). */
interface Sums {
	readonly w: Float64Array;
	readonly x: Float64Array;
	readonly y: Float64Array;
	readonly xx: Float64Array;
	readonly xy: Float64Array;
	readonly yy: Float64Array;
	/** Index of each group's first point; one more entry: `to`. */
	readonly first: Int32Array;
	/** x of each group's first point, and of the point before it (the last of the group before). */
	readonly x0: Float64Array;
	readonly xBefore: Float64Array;
}

const SCRATCH: Sums = {
	w: new Float64Array(MAX_GROUPS + 1),
	x: new Float64Array(MAX_GROUPS + 1),
	y: new Float64Array(MAX_GROUPS + 1),
	xx: new Float64Array(MAX_GROUPS + 1),
	xy: new Float64Array(MAX_GROUPS + 1),
	yy: new Float64Array(MAX_GROUPS + 1),
	first: new Int32Array(MAX_GROUPS + 1),
	x0: new Float64Array(MAX_GROUPS + 1),
	xBefore: new Float64Array(MAX_GROUPS + 1),
};

/** The prefix sums of [from, to) in SCRATCH, valid until the next call; returns the number of groups. */
function prefixSums(times: ArrayLike<number>, values: ArrayLike<number>, from: number, to: number): number {
	const n = to - from;
	const size = Math.ceil(n / MAX_GROUPS);
	const groups = Math.ceil(n / size);
	// One set of arrays for every call (at most MAX_GROUPS + 1 entries): the search runs per process per rank scan.
	const sums = SCRATCH;
	sums.w[0] = 0;
	sums.x[0] = 0;
	sums.y[0] = 0;
	sums.xx[0] = 0;
	sums.xy[0] = 0;
	sums.yy[0] = 0;
	const t0 = times[from]!;
	const scale = times[to - 1]! - t0 || 1;
	// About the first value: RSS in bytes squared would lose the noise to rounding.
	const y0 = values[from]!;
	for (let g = 0; g < groups; g++) {
		const a = from + g * size;
		const b = Math.min(to, a + size);
		sums.first[g] = a;
		sums.x0[g] = (times[a]! - t0) / scale;
		sums.xBefore[g] = a > from ? (times[a - 1]! - t0) / scale : 0;
		let w = 0;
		let sx = 0;
		let sy = 0;
		let sxx = 0;
		let sxy = 0;
		let syy = 0;
		for (let i = a; i < b; i++) {
			const x = (times[i]! - t0) / scale;
			const y = values[i]! - y0;
			w++;
			sx += x;
			sy += y;
			sxx += x * x;
			sxy += x * y;
			syy += y * y;
		}
		sums.w[g + 1] = sums.w[g]! + w;
		sums.x[g + 1] = sums.x[g]! + sx;
		sums.y[g + 1] = sums.y[g]! + sy;
		sums.xx[g + 1] = sums.xx[g]! + sxx;
		sums.xy[g + 1] = sums.xy[g]! + sxy;
		sums.yy[g + 1] = sums.yy[g]! + syy;
	}
	sums.first[groups] = to;
	return groups;
}

/** The squared error of one least-squares line over groups [a, b), and the variance about the mean. */
function lineError(s: Sums, a: number, b: number): {sse: number; sst: number} {
	const w = s.w[b]! - s.w[a]!;
	if (w < 2) return {sse: 0, sst: 0};
	const sx = s.x[b]! - s.x[a]!;
	const sy = s.y[b]! - s.y[a]!;
	const sxx = s.xx[b]! - s.xx[a]! - (sx * sx) / w;
	const syy = s.yy[b]! - s.yy[a]! - (sy * sy) / w;
	const sxy = s.xy[b]! - s.xy[a]! - (sx * sy) / w;
	const sse = syy - (sxx > 0 ? (sxy * sxy) / sxx : 0);
	return {sse: Math.max(0, sse), sst: Math.max(0, syy)};
}

/** The least-squares slope over groups [a, b) (per unit of the span). */
function slopeOf(s: Sums, a: number, b: number): number {
	const w = s.w[b]! - s.w[a]!;
	const sx = s.x[b]! - s.x[a]!;
	const sxx = s.xx[b]! - s.xx[a]! - (sx * sx) / w;
	const sxy = s.xy[b]! - s.xy[a]! - (sx * (s.y[b]! - s.y[a]!)) / w;
	return sxx > 0 ? sxy / sxx : 0;
}

/** The least-squares line over groups [a, b) at x. */
function lineAt(s: Sums, a: number, b: number, x: number): number {
	const w = s.w[b]! - s.w[a]!;
	const sx = s.x[b]! - s.x[a]!;
	const sy = s.y[b]! - s.y[a]!;
	const sxx = s.xx[b]! - s.xx[a]! - (sx * sx) / w;
	const sxy = s.xy[b]! - s.xy[a]! - (sx * sy) / w;
	const slope = sxx > 0 ? sxy / sxx : 0;
	return sy / w + slope * (x - sx / w);
}

/**
 * The last change of the points [from, to): each part either side of a split holds at least `minPoints` points.
 * Times ascending. `cutAtDrops` false: a change where the series falls (memory freed) is not cut at, and the
 * search stops there: a saw-tooth's last drop would leave its last tooth, a climb, as the recent part.
 */
export function lastChange(
	times: ArrayLike<number>,
	values: ArrayLike<number>,
	from: number,
	to: number,
	minPoints: number,
	cutAtDrops = true,
	cutAtClimbs = true,
): ChangePoint {
	if (to - from < 2 * minPoints) return {start: from, changed: false};
	const groups = prefixSums(times, values, from, to);
	const s = SCRATCH;
	let a = 0;
	for (;;) {
		const whole = lineError(s, a, groups);
		if (whole.sse <= FITS * whole.sst || s.w[groups]! - s.w[a]! < 2 * minPoints) break;
		let best = -1;
		let bestError = Number.POSITIVE_INFINITY;
		for (let k = a + 1; k < groups; k++) {
			if (s.w[k]! - s.w[a]! < minPoints) continue;
			if (s.w[groups]! - s.w[k]! < minPoints) break;
			const error = lineError(s, a, k).sse + lineError(s, k, groups).sse;
			// On a tie the later split: the recent part is the one that matters.
			if (error <= bestError) {
				bestError = error;
				best = k;
			}
		}
		if (best < 0 || bestError > ACCEPT_RATIO * whole.sse) break;
		// A drop: the line after starts below where the line before ends (each at its own point either side of the
		// split), by more than three times the noise about them.
		const noise = Math.sqrt(bestError / (s.w[groups]! - s.w[a]!));
		const fall = lineAt(s, a, best, s.xBefore[best]!) - lineAt(s, best, groups, s.x0[best]!);
		if (!cutAtDrops && fall > 3 * noise) break;
		// A climb whose rate changed (a rank slowed by a busy node) is one climb to a leak detector: not cut at while
		// the line after still rises at a quarter of the line before or more.
		const before = slopeOf(s, a, best);
		if (!cutAtClimbs && before > 0 && slopeOf(s, best, groups) >= before / 4) break;
		a = best;
	}
	return {start: s.first[a]!, changed: a > 0};
}
