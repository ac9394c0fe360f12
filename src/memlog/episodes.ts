import {recordOf, type MetricSeries} from './metric-series.js';
import type {Series} from './series-types.js';

// Where a metric stood at or above its critical threshold: the seconds spent there, and the episodes
// (runs of such records; two runs less than 2 intervals apart are one episode).
//
// A record stands for the window before its timestamp (its interval), but only as far back as the metric's record
// before it, and the metric's first record for no time at all: the log says nothing of the time before its data, and
// a window longer than the spacing (records written early, on shutdown, or sparser than `interval_s` says) would
// count time twice. So time above never exceeds the data's span, and every episode lies within it.

export interface Episode {
	/** ISO time the episode began: the start of its first record's window, clipped to the data (see above). */
	readonly start: string;
	/** ISO time of its last record above the threshold. */
	readonly end: string;
	readonly duration_s: number;
	/** Highest peak percent in the episode. */
	readonly peak: number;
	readonly start_ms: number;
	readonly end_ms: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

function episode(startMs: number, endMs: number, peak: number): Episode {
	return {
		start: iso(startMs),
		end: iso(endMs),
		duration_s: (endMs - startMs) / 1000,
		peak,
		start_ms: startMs,
		end_ms: endMs,
	};
}

/**
 * Seconds with the peak at or above the critical line of its point (`lineAt(i)`: one for every point, or a GPU's own
 * as each record gave it), the episodes, and the highest peak ÷ its line (1 or more: a breach); `durationOf(i)` is the
 * interval of point i in seconds, which the loop below clips to the data.
 */
export function timeAbove(
	metric: MetricSeries,
	series: Series,
	lineAt: (i: number) => number,
	durationOf: (i: number) => number,
): {above: number; episodes: Episode[]; worst: number} {
	const n = metric.count;
	let above = 0;
	let worst = 0;
	const episodes: Episode[] = [];
	let open: {start: number; end: number; peak: number; interval: number} | null = null;
	const close = () => {
		if (!open) return;
		const last = episodes[episodes.length - 1];
		// Separated from the previous episode by less than 2 intervals: the same episode.
		if (last && open.start - last.end_ms < 2 * open.interval * 1000) {
			const peak = Math.max(last.peak, open.peak);
			episodes[episodes.length - 1] = episode(last.start_ms, open.end, peak);
		} else {
			episodes.push(episode(open.start, open.end, open.peak));
		}
		open = null;
	};
	let previous = n > 0 ? series.time[recordOf(metric, 0)]! : 0;
	for (let i = 0; i < n; i++) {
		const peak = metric.peak[i]!;
		const line = lineAt(i);
		const t = series.time[recordOf(metric, i)]!;
		const interval = durationOf(i);
		// The window [start, t]: the interval, cut at the point before (the first point's is empty).
		const start = Math.max(t - interval * 1000, previous);
		previous = t;
		if (line > 0 && peak / line > worst) worst = peak / line;
		// Values are stored as float32: compared with the line rounded the same way.
		if (peak >= Math.fround(line)) {
			above += (t - start) / 1000;
			if (open) {
				open.end = t;
				if (peak > open.peak) open.peak = peak;
			} else {
				// Merging still goes by the interval: a clipped window says nothing of the spacing.
				open = {start, end: t, peak, interval};
			}
		} else {
			close();
		}
	}
	close();
	return {above, episodes, worst};
}
