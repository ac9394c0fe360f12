// When to try a webhook again: exponential backoff with jitter (so that many traintops refused by one receiver at
// once do not come back in step), or what the receiver asked for with Retry-After, up to a minute.

/** The waits before the second, third and fourth try: 1 s, 2 s, 4 s, each ±20 %. */
export const RETRY_BASE_MS: readonly number[] = [1000, 2000, 4000];

/** A receiver asking for longer is waited for this long at most: a notice an hour late has lost its point. */
const RETRY_AFTER_MAX_S = 60;

/** The wait before retry number `retry` (1 for the second try) of `bases.length`. */
export function backoffMs(retry: number, bases: readonly number[], random: () => number = Math.random): number {
	const base = bases[Math.min(retry, bases.length) - 1] ?? 0;
	return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * A Retry-After header's wait in ms (delta-seconds or an HTTP date), capped at a minute; null when there is none or it
 * cannot be read (then the backoff's own wait applies).
 */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
	if (header === null) return null;
	const text = header.trim();
	let seconds: number;
	if (/^\d+$/.test(text)) seconds = Number(text);
	else {
		// An HTTP date begins with its day's name; Date.parse alone would read `-5` as a year.
		const at = /^[A-Za-z]{3},/.test(text) ? Date.parse(text) : Number.NaN;
		if (Number.isNaN(at)) return null;
		seconds = Math.max(0, (at - now) / 1000);
	}
	return Math.round(Math.min(seconds, RETRY_AFTER_MAX_S) * 1000);
}

/** Resolves after `ms`, or at once when `signal` aborts; its timer never keeps the process alive. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
	if (signal.aborted) return Promise.resolve();
	return new Promise(resolve => {
		const done = (): void => {
			clearTimeout(timer);
			signal.removeEventListener('abort', done);
			resolve();
		};
		const timer = setTimeout(done, ms);
		timer.unref();
		signal.addEventListener('abort', done, {once: true});
	});
}
