// Points in time. Two clocks on purpose: the live views (TUI, headless lines, `checkpoints`) show
// local time, what a person beside the job reads; the memory report shows the log's own UTC
// timestamps, so that it matches the log line for line whatever the reader's time zone.

function two(n: number): string {
	return String(n).padStart(2, '0');
}

/** Local wall-clock time, `2026-11-22 10:00:30`. */
export function localTime(epochMs: number): string {
	const d = new Date(epochMs);
	return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** `10:00:30` on the same local day as `now`, the full localTime otherwise: short where the day is obvious. */
export function localTimeShort(epochMs: number, now: number): string {
	const full = localTime(epochMs);
	return full.slice(0, 10) === localTime(now).slice(0, 10) ? full.slice(11) : full;
}

/**
 * `2026-11-22 14:30` (or `… 14:30:05` with seconds) from an ISO time such as the memory log's
 * `2026-11-22T14:30:05.123Z`, read as written: no Date, so no time zone is applied.
 */
export function isoTimeText(isoTime: string, seconds = false): string {
	return isoTime.slice(0, seconds ? 19 : 16).replace('T', ' ');
}
