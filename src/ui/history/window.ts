// The history charts' time window, switched with a key: the last five minutes (what is happening), the
// last hour (the trend), or the whole run (the post-mortem picture).

export type HistoryWindow = '5m' | '1h' | 'run';

const ORDER: readonly HistoryWindow[] = ['5m', '1h', 'run'];

const LABEL: Readonly<Record<HistoryWindow, string>> = {'5m': 'last 5 min', '1h': 'last hour', run: 'whole run'};

const SPAN_MS: Readonly<Record<Exclude<HistoryWindow, 'run'>, number>> = {'5m': 5 * 60_000, '1h': 60 * 60_000};

export function nextWindow(window: HistoryWindow): HistoryWindow {
	return ORDER[(ORDER.indexOf(window) + 1) % ORDER.length]!;
}

export function windowLabel(window: HistoryWindow): string {
	return LABEL[window];
}

/** The chart's left edge: a fixed span back from `now`, or the first sample for the whole run. */
export function windowStart(window: HistoryWindow, now: number, startedAt: number | null): number {
	if (window === 'run') return Math.min(now - 1000, startedAt ?? now - 1000);
	return now - SPAN_MS[window];
}
