// Lengths of time, always given in seconds (callers holding milliseconds divide by 1000), so that
// a "300 ms" timeout, a "4 m 30 s" span of a log and a "12 min" checkpoint age read alike.

/** Seconds under which a duration keeps one decimal: a 2.5 s timeout is not a 3 s one. */
const FRACTION_BELOW_S = 10;

function pad2(n: number): string {
	return String(n).padStart(2, '0');
}

/**
 * A duration to the precision a person needs, in at most two units: `300 ms`, `2.5 s`, `45 s`,
 * `2 m 30 s`, `1 h 05 m`, `2 d 03 h`. Negative (a clock that went back) keeps its sign rather than
 * reading as a real length; not finite gives `n/a`.
 */
export function formatDuration(seconds: number): string {
	if (!Number.isFinite(seconds)) return 'n/a';
	// Rounded once, at the finest unit shown, so that 59.6 s becomes `1 m 00 s` and never `60 s`.
	const ms = Math.round(Math.abs(seconds) * 1000);
	if (ms === 0) return '0 s';
	return `${seconds < 0 ? '-' : ''}${positiveDuration(ms)}`;
}

function positiveDuration(ms: number): string {
	if (ms < 1000) return `${ms} ms`;
	if (ms < FRACTION_BELOW_S * 1000) return `${Number((ms / 1000).toFixed(1))} s`;
	const s = Math.round(ms / 1000);
	if (s < 60) return `${s} s`;
	const m = Math.floor(s / 60);
	if (m < 60) return `${m} m ${pad2(s % 60)} s`;
	const h = Math.floor(m / 60);
	if (h < 48) return `${h} h ${pad2(m % 60)} m`;
	return `${Math.floor(h / 24)} d ${pad2(h % 24)} h`;
}

/**
 * `45 s`, `12 min`, `3.5 h`, `2.1 d`: one unit, for an age or an interval read at a glance (a
 * checkpoint's age, a retry). Coarser than formatDuration on purpose; a negative age (a clock
 * ahead of ours) is `0 s`.
 */
export function formatAge(seconds: number): string {
	return finerAge(seconds, 0);
}

/** formatAge's unit, with `extra` more decimals than it gives (0 for s and min, 1 for h and d). */
function finerAge(seconds: number, extra: number): string {
	if (!Number.isFinite(seconds)) return 'n/a';
	if (seconds < 90) return `${Math.max(0, seconds).toFixed(extra)} s`;
	if (seconds < 90 * 60) return `${(seconds / 60).toFixed(extra)} min`;
	if (seconds < 36 * 3600) return `${(seconds / 3600).toFixed(1 + extra)} h`;
	return `${(seconds / 86_400).toFixed(1 + extra)} d`;
}

const AGE_UNIT_S: Readonly<Record<string, number>> = {s: 1, min: 60, h: 3600, d: 86_400};

/** A formatAge/finerAge text back to seconds, as a reader would take it: `2.5 min` → 150. */
function ageSeconds(text: string): number {
	const [value, unit] = text.split(' ');
	return Number(value) * (AGE_UNIT_S[unit ?? ''] ?? Number.NaN);
}

/**
 * A span someone set (a timeout, a lead), said exactly: formatAge's one unit when that is exact (`60 s`, `5 min`),
 * else formatDuration's two (`1 m 30 s` for 90 s, which formatAge would round to `2 min`; `2.5 s`).
 */
export function exactSpan(seconds: number): string {
	const age = formatAge(seconds);
	return ageSeconds(age) === seconds ? age : formatDuration(seconds);
}
