import {traintopVersion} from '../agent/version.js';
import {backoffMs, pause, RETRY_BASE_MS} from './backoff.js';
import type {Notice, NoticeSink, SinkTrouble} from './notice.js';
import {noticeBody} from './notice-body.js';
import {redactUrl, scrubUrl} from './redact-url.js';
import {QUEUE_LIMIT, serialQueue} from './serial-queue.js';
import {troubleLedger} from './trouble-once.js';
import {postOnce, webhookTarget} from './webhook-post.js';

// `--webhook URL`: each notice POSTed as JSON, in order, one request at a time. It must never hurt the monitor: send
// never waits, each try is cut off after the timeout, a failing receiver is tried again with backoff a few times and
// then the notice is counted as lost and said once; the URL's secrets (Slack's token is its path) are never said.

/** After the first try, this many more. */
const RETRIES = 3;
/** How long close() lets the request in flight finish before it is aborted: traintop is ending. */
const CLOSE_GRACE_MS = 2000;

type WebhookTrouble = 'failed' | 'dropped';

export function webhookSink(
	url: string,
	options: {
		readonly timeoutS: number;
		readonly trouble: SinkTrouble;
		/** The waits before each retry, ±20 % (default 1 s, 2 s, 4 s); the tests shorten them. */
		readonly backoffMs?: readonly number[];
	},
): NoticeSink {
	const shown = redactUrl(url);
	const bases = options.backoffMs ?? RETRY_BASE_MS;
	const userAgent = `traintop/${traintopVersion()}`;
	const target = webhookTarget(url);
	const ledger = troubleLedger<WebhookTrouble>('webhook', options.trouble);
	// At close the backoff waits end at once (`stopping`), the request in flight is aborted after a grace (`closing`).
	const stopping = new AbortController();
	const closing = new AbortController();
	let closed = false;
	let lostAtClose = 0;

	async function deliver(notice: Notice): Promise<void> {
		const body = JSON.stringify(noticeBody(notice));
		for (let attempt = 1; ; attempt++) {
			const result = await postOnce(target.url, body, {
				userAgent,
				authorization: target.authorization,
				timeoutMs: options.timeoutS * 1000,
				abort: closing.signal,
			});
			if (result.ok) return;
			if (closing.signal.aborted) {
				lostAtClose++;
				return;
			}
			const tries = `${attempt} ${attempt === 1 ? 'try' : 'tries'}`;
			if (!result.retry || attempt > RETRIES) {
				ledger.note(
					'failed',
					() =>
						`webhook ${shown} failed: ${scrubUrl(result.what, url)} after ${tries}; later failures are counted, not said`,
				);
				return;
			}
			await pause(result.retryAfterMs ?? backoffMs(attempt, bases), stopping.signal);
			if (closed) {
				lostAtClose++;
				return;
			}
		}
	}

	const queue = serialQueue(deliver, (count, why) => {
		if (why === 'closed') lostAtClose += count;
		else
			ledger.note(
				'dropped',
				() =>
					`webhook ${shown} fell behind: notices waited beyond ${QUEUE_LIMIT} and the oldest were dropped; later ones are counted`,
			);
	});

	return {
		name: 'webhook',
		send(notice) {
			queue.push(notice);
		},
		async close() {
			if (closed) return;
			closed = true;
			stopping.abort();
			const grace = setTimeout(() => closing.abort(), Math.min(CLOSE_GRACE_MS, options.timeoutS * 1000));
			grace.unref();
			// No notice starts after close: what waits is dropped, the one in flight gets the grace.
			await queue.close();
			clearTimeout(grace);
			closing.abort();
			const counts = ledger.counts();
			const lost = (counts.failed ?? 0) + (counts.dropped ?? 0) + lostAtClose;
			if (lost > 0) {
				try {
					options.trouble(
						'webhook',
						`webhook ${shown}: ${lost} notice(s) not delivered (${lostParts(counts, lostAtClose)})`,
					);
				} catch {
					// The view's printer failing must not stop the close.
				}
			}
		},
	};
}

function lostParts(counts: Readonly<Partial<Record<WebhookTrouble, number>>>, atClose: number): string {
	const parts = [
		[counts.failed ?? 0, 'failed'],
		[counts.dropped ?? 0, 'dropped from a full queue'],
		[atClose, 'still waiting when traintop ended'],
	] as const;
	return parts
		.filter(([count]) => count > 0)
		.map(([count, what]) => `${count} ${what}`)
		.join(', ');
}
