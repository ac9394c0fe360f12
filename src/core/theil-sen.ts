// The robust slope of a handful of points (a series' bins, core/robust-trend.ts): Theil–Sen (the median of the
// slopes between every pair, so a third of the points may be wild without moving it) and the Mann–Kendall statistic
// (how consistently the points rise or fall, as a z score). Both are O(m²) in the points: m ≤ 24 here.

import {select} from './quickselect.js';

/** Scratch for the pairwise slopes of up to 24 points (276 pairs): no allocation per call. */
const pairs = new Float64Array((24 * 23) / 2);

/** The median of values[0..count), reordering them: a selection, not a sort (this runs 40 times per rank scan). */
export function median(values: Float64Array, count: number): number {
	const mid = count >> 1;
	select(values, mid, 0, count);
	const upper = values[mid]!;
	if (count % 2 === 1) return upper;
	// The lower middle: the largest of what the selection left before mid.
	let lower = values[0]!;
	for (let i = 1; i < mid; i++) if (values[i]! > lower) lower = values[i]!;
	return (lower + upper) / 2;
}

/** Theil–Sen slope of (x[i], y[i]), i < m; 0 with fewer than two distinct x. */
export function theilSen(x: Float64Array, y: Float64Array, m: number): number {
	let k = 0;
	const slopes = (m * (m - 1)) / 2 <= pairs.length ? pairs : new Float64Array((m * (m - 1)) / 2);
	for (let i = 0; i < m; i++) {
		for (let j = i + 1; j < m; j++) {
			const dx = x[j]! - x[i]!;
			if (dx !== 0) slopes[k++] = (y[j]! - y[i]!) / dx;
		}
	}
	return k === 0 ? 0 : median(slopes, k);
}

const levelScratch = new Float64Array(24);

/** The line's level at x: the median of y − slope·x, the intercept that goes with a Theil–Sen slope. */
export function theilSenLevel(x: Float64Array, y: Float64Array, m: number, slope: number, at: number): number {
	const offsets = m <= levelScratch.length ? levelScratch : new Float64Array(m);
	for (let i = 0; i < m; i++) offsets[i] = y[i]! - slope * x[i]!;
	return median(offsets, m) + slope * at;
}

/**
 * Mann–Kendall z of y in the order given (x ascending): S = Σ sign(y[j] − y[i]) over i < j, against its variance
 * without ties, with the continuity correction. |z| ≥ 2.33 is a one-sided 1 % test; 0 with fewer than 3 points.
 */
export function mannKendall(y: Float64Array, m: number): number {
	if (m < 3) return 0;
	let s = 0;
	for (let i = 0; i < m; i++) for (let j = i + 1; j < m; j++) s += Math.sign(y[j]! - y[i]!);
	const variance = (m * (m - 1) * (2 * m + 5)) / 18;
	if (s === 0) return 0;
	return (s - Math.sign(s)) / Math.sqrt(variance);
}
