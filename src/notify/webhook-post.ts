import {retryAfterMs} from './backoff.js';
import {scrubUrl} from './redact-url.js';

// One POST of a notice to a webhook, and what its outcome means for the next try. Every word said about a failure
// passes through scrubUrl: undici's errors may quote the URL, and the URL is a secret.

export type PostResult =
	| {readonly ok: true}
	| {
			readonly ok: false;
			/** A network error, a timeout, 5xx or 429: the receiver may take it later. Another 4xx refuses it. */
			readonly retry: boolean;
			/** What happened, safe to say: `HTTP 500`, `no answer within 10 s`, `network error: ECONNREFUSED`. */
			readonly what: string;
			/** What a 429 or 503 asked for with Retry-After; null when it asked for nothing. */
			readonly retryAfterMs: number | null;
	  };

export interface PostOptions {
	readonly userAgent: string;
	/** `Basic …` for a URL's user:password, which fetch refuses to send in the URL itself. */
	readonly authorization: string | null;
	readonly timeoutMs: number;
	/** Aborts the request (traintop is ending). */
	readonly abort: AbortSignal;
}

/**
 * Where to POST: the URL without its user:password, and those as Basic authorization (fetch refuses a URL with
 * credentials, and `https://user:token@host/hook` is how some receivers are given).
 */
export function webhookTarget(url: string): {readonly url: string; readonly authorization: string | null} {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		// fetch will say it cannot parse it, and that is said (scrubbed) as the failure.
		return {url, authorization: null};
	}
	if (parsed.username === '' && parsed.password === '') return {url, authorization: null};
	const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
	parsed.username = '';
	parsed.password = '';
	return {url: parsed.href, authorization: `Basic ${Buffer.from(credentials).toString('base64')}`};
}

export async function postOnce(url: string, body: string, options: PostOptions): Promise<PostResult> {
	const signal = AbortSignal.any([AbortSignal.timeout(options.timeoutMs), options.abort]);
	try {
		const response = await fetch(url, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'user-agent': options.userAgent,
				...(options.authorization === null ? {} : {authorization: options.authorization}),
			},
			body,
			signal,
			// A redirect would resend the notice somewhere the user did not name.
			redirect: 'manual',
		});
		// The answer's body is not wanted; reading none frees the connection for the next notice.
		await response.body?.cancel().catch(() => {});
		if (response.status >= 200 && response.status < 300) return {ok: true};
		const retry = response.status === 429 || response.status >= 500;
		const why = response.status < 400 ? ' (a redirect, not followed)' : retry ? '' : ' (refused, not retried)';
		const what = `HTTP ${response.status}${why}`;
		return {ok: false, retry, what, retryAfterMs: retry ? retryAfterMs(response.headers.get('retry-after')) : null};
	} catch (error) {
		return {ok: false, retry: true, what: scrubUrl(failureOf(error, options), url), retryAfterMs: null};
	}
}

function failureOf(error: unknown, options: PostOptions): string {
	if (options.abort.aborted) return 'aborted: traintop was ending';
	if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${options.timeoutMs / 1000} s`;
	// undici: TypeError('fetch failed') whose cause is the socket's error (ECONNREFUSED, ENOTFOUND, a TLS failure).
	const cause = error instanceof Error ? (error.cause as {code?: unknown; message?: unknown} | undefined) : undefined;
	if (typeof cause?.code === 'string') return `network error: ${cause.code}`;
	if (typeof cause?.message === 'string') return `network error: ${cause.message}`;
	return `network error: ${error instanceof Error ? error.message : String(error)}`;
}
