import {lastChange} from './change-point.js';
import {mannKendall, median, theilSen, theilSenLevel} from './theil-sen.js';

// One robust trend estimator for a memory series, used live (a leak named by rank: core/memory-trend.ts) and by
// `--analyze` (memlog/trend.ts). Two steps:
//  1. the recent part: the series after its last change point (core/change-point.ts), so a spike that then stays
//     flat, a warm-up that levelled off or a step down is not read as a slope through the whole window;
//  2. a robust slope over that part: the part cut into at most 24 bins by time, then Theil–Sen over the bins'
//     MEDIANS (the climb's rate) and over their MINIMA (the floor). A saw-tooth (allocate, free, allocate…) whose
//     floor does not rise is flat: the floor is taken at four scales (24, 12, 6, 3 bins) and only a rise that every
//     scale agrees on counts, so teeth slower than a fine bin but faster than a coarse one still read flat.
// What it cannot do: a saw-tooth whose period is longer than about a third of the window (a tooth that builds
// for ten minutes in a fifteen-minute window) is, while it builds, a climb like any other — until its drop, nothing
// in the data tells it from a leak; after the drop its floor at the coarse scales stops rising and it reads flat.
// Cost: O(n) for the change search and the bins, O(24²) for the slopes: ~450 points per process live.

export interface RobustTrendOptions {
	/** At most this many bins (default 24). */
	readonly maxBins?: number;
	/** Each part either side of a change holds at least this many points (default 6). */
	readonly minSegmentPoints?: number;
	/** Look for a change point (default true); false: the slope over all the points given. */
	readonly changePoints?: boolean;
	/**
	 * Cut at a change where the series falls (default true: a step down then flat is flat). A leak detector passes
	 * false: after a saw-tooth's drop its next tooth is a climb, and only the teeth before it show the floor is flat.
	 */
	readonly cutAtDrops?: boolean;
	/**
	 * Cut at a change of rate within a climb (default true). A leak detector passes false: a leak whose rate changes
	 * with the CPU its rank gets is still one leak, and each cut would make it wait for a new window.
	 */
	readonly cutAtClimbs?: boolean;
	/** `enough` needs this many points in the recent part (default 6)… */
	readonly minPoints?: number;
	/** …over at least this many ms (default 0). */
	readonly minSpanMs?: number;
}

export interface RobustTrend {
	/** Per ms: Theil–Sen over the bins' medians (the rate of a climb). */
	readonly slope: number;
	/**
	 * Per ms: Theil–Sen over the bins' minima, the smallest rise (or fall) that every scale agrees on; 0 when the
	 * scales disagree in sign — a floor that does not move.
	 */
	readonly floorSlope: number;
	/**
	 * The lowest value of the recent part's later half minus that of its earlier half (by time): a leak's floor never
	 * comes back down, so this is about floorSlope × half the span; a saw-tooth with a trough in each half has ~0.
	 */
	readonly floorRise: number;
	/** Mann–Kendall z over the bins' medians and over their minima (finest scale): how consistent the change is. */
	readonly z: number;
	readonly floorZ: number;
	/** The robust line's value at the last point's time (the series' level now, without its last sample's noise). */
	readonly level: number;
	/** Index of the recent part's first point, its time, and whether a change point put it there. */
	readonly start: number;
	readonly startTime: number;
	readonly changed: boolean;
	/** Points in the recent part, and the ms from its first to its last. */
	readonly points: number;
	readonly spanMs: number;
	/** At least minPoints over at least minSpanMs. */
	readonly enough: boolean;
}

/** Bins of the recent part: each bin's median and minimum with their times, finest scale. */
interface Bins {
	readonly count: number;
	readonly medianT: Float64Array;
	readonly medianV: Float64Array;
	readonly minT: Float64Array;
	readonly minV: Float64Array;
}

const SCALES = [1, 2, 4, 8];

/** The points [s, to) in at most maxBins bins by time (each point its own bin when they are few). */
function binsOf(times: ArrayLike<number>, values: ArrayLike<number>, s: number, to: number, maxBins: number): Bins {
	const n = to - s;
	const count = Math.min(n, maxBins);
	const bins: Bins = {
		count: 0,
		medianT: new Float64Array(count),
		medianV: new Float64Array(count),
		minT: new Float64Array(count),
		minV: new Float64Array(count),
	};
	const t0 = times[s]!;
	const span = times[to - 1]! - t0;
	const scratch = new Float64Array(Math.ceil(n / Math.max(1, count)) * 4 + 4);
	let used = 0;
	let i = s;
	while (i < to) {
		// Each point its own bin when there are few; else equal slices of time.
		const b = n <= maxBins || span <= 0 ? i - s : Math.min(count - 1, Math.floor(((times[i]! - t0) / span) * count));
		let j = i + 1;
		if (n > maxBins && span > 0)
			while (j < to && Math.min(count - 1, Math.floor(((times[j]! - t0) / span) * count)) === b) j++;
		const size = j - i;
		const values_ = size <= scratch.length ? scratch : new Float64Array(size);
		let minAt = i;
		for (let k = i; k < j; k++) {
			values_[k - i] = values[k]!;
			if (values[k]! < values[minAt]!) minAt = k;
		}
		const mid = i + ((size - 1) >> 1);
		bins.medianT[used] = size % 2 === 1 ? times[mid]! - t0 : (times[mid]! + times[mid + 1]!) / 2 - t0;
		bins.medianV[used] = median(values_, size);
		bins.minT[used] = times[minAt]! - t0;
		bins.minV[used] = values[minAt]!;
		used++;
		i = j;
	}
	return {...bins, count: used};
}

/** The floor's slope at each scale (adjacent bins merged by 2, 4, 8): the one nearest 0 if all agree, else 0. */
function floorSlopeOf(bins: Bins): number {
	let agreed: number | null = null;
	const t = new Float64Array(bins.count);
	const v = new Float64Array(bins.count);
	for (const merge of SCALES) {
		const m = Math.ceil(bins.count / merge);
		if (m < 3 && merge > 1) break;
		for (let g = 0; g < m; g++) {
			let at = g * merge;
			for (let k = at + 1; k < Math.min(bins.count, (g + 1) * merge); k++) if (bins.minV[k]! < bins.minV[at]!) at = k;
			t[g] = bins.minT[at]!;
			v[g] = bins.minV[at]!;
		}
		const slope = theilSen(t, v, m);
		if (agreed === null) agreed = slope;
		else if (Math.sign(slope) !== Math.sign(agreed)) return 0;
		else if (Math.abs(slope) < Math.abs(agreed)) agreed = slope;
	}
	return agreed ?? 0;
}

/** The lowest value of [s, to)'s later half (by time) minus that of its earlier half. */
function floorRiseOf(times: ArrayLike<number>, values: ArrayLike<number>, s: number, to: number): number {
	const middle = (times[s]! + times[to - 1]!) / 2;
	let early = Number.POSITIVE_INFINITY;
	let late = Number.POSITIVE_INFINITY;
	for (let i = s; i < to; i++) {
		const v = values[i]!;
		if (times[i]! < middle) early = Math.min(early, v);
		else late = Math.min(late, v);
	}
	return Number.isFinite(early) && Number.isFinite(late) ? late - early : 0;
}

/** The robust trend of the points [from, to) (times in ms, ascending). */
export function robustTrend(
	times: ArrayLike<number>,
	values: ArrayLike<number>,
	from = 0,
	to = times.length,
	options: RobustTrendOptions = {},
): RobustTrend {
	const n = to - from;
	const minPoints = options.minPoints ?? 6;
	if (n < 2) {
		const level = n === 1 ? values[from]! : Number.NaN;
		const startTime = n === 1 ? times[from]! : Number.NaN;
		return {
			slope: 0,
			floorSlope: 0,
			floorRise: 0,
			z: 0,
			floorZ: 0,
			level,
			start: from,
			startTime,
			changed: false,
			points: n,
			spanMs: 0,
			enough: false,
		};
	}
	const change =
		options.changePoints === false
			? {start: from, changed: false}
			: lastChange(
					times,
					values,
					from,
					to,
					options.minSegmentPoints ?? 6,
					options.cutAtDrops ?? true,
					options.cutAtClimbs ?? true,
				);
	const s = change.start;
	const bins = binsOf(times, values, s, to, options.maxBins ?? 24);
	const slope = theilSen(bins.medianT, bins.medianV, bins.count);
	const spanMs = times[to - 1]! - times[s]!;
	return {
		slope,
		floorSlope: floorSlopeOf(bins),
		floorRise: floorRiseOf(times, values, s, to),
		z: mannKendall(bins.medianV, bins.count),
		floorZ: mannKendall(bins.minV, bins.count),
		level: theilSenLevel(bins.medianT, bins.medianV, bins.count, slope, spanMs),
		start: s,
		startTime: times[s]!,
		changed: change.changed,
		points: to - s,
		spanMs,
		enough: to - s >= minPoints && spanMs >= (options.minSpanMs ?? 0),
	};
}
