import {afterEach, beforeEach, describe, expect, it} from 'vitest';
import {traintopVersion} from '../../src/agent/version.js';
import type {NoticeSink} from '../../src/notify/notice.js';
import {noticeBody} from '../../src/notify/notice-body.js';
import {webhookSink} from '../../src/notify/webhook-sink.js';
import {sampleNotice} from '../helpers/sample-notice.js';
import {until} from '../helpers/until.js';
import {
	RECEIVER_SECRETS,
	type ReceivedRequest,
	type ReceiverAnswer,
	startWebhookReceiver,
	type WebhookReceiver,
} from '../helpers/webhook-receiver.js';

// The webhook sink against a real local HTTP server that answers by a script: what it posts, which failures it tries
// again and how long it waits, what it says (once, and never the URL's secrets), and a close that does not wait on a
// receiver that does not answer.

const receivers: WebhookReceiver[] = [];
const sinks: NoticeSink[] = [];
let troubles: string[] = [];

beforeEach(() => {
	troubles = [];
});

afterEach(async () => {
	await Promise.all(sinks.splice(0).map(sink => sink.close()));
	await Promise.all(receivers.splice(0).map(receiver => receiver.close()));
});

async function receiver(answers?: readonly ReceiverAnswer[]): Promise<WebhookReceiver> {
	const started = await startWebhookReceiver({answers});
	receivers.push(started);
	return started;
}

/** Short waits between tries, unless a test measures the real ones. */
function sink(url: string, options: {timeoutS?: number; backoffMs?: readonly number[]} = {}): NoticeSink {
	const made = webhookSink(url, {
		timeoutS: options.timeoutS ?? 10,
		backoffMs: options.backoffMs ?? [20, 40, 80],
		trouble: (name, message) => troubles.push(`${name}: ${message}`),
	});
	sinks.push(made);
	return made;
}

function expectNoSecrets(lines: readonly string[]): void {
	for (const line of lines) {
		for (const secret of [...RECEIVER_SECRETS, '/hook']) expect(line).not.toContain(secret);
	}
}

function episodeOf(request: ReceivedRequest): string | undefined {
	return (request.body?.notice as {episode?: string} | undefined)?.episode;
}

function gaps(times: readonly number[]): number[] {
	return times.slice(1).map((time, index) => time - (times[index] ?? time));
}

describe('webhookSink', () => {
	it('POSTs the notice body as JSON, with its text, a content-type and a user-agent', async () => {
		const hook = await receiver();
		const notice = sampleNotice();
		sink(hook.url).send(notice);
		const [request] = await hook.waitFor(1);
		expect(request?.method).toBe('POST');
		expect(request?.path).toBe(new URL(hook.url).pathname + new URL(hook.url).search);
		expect(request?.headers['content-type']).toBe('application/json');
		expect(request?.headers['user-agent']).toBe(`traintop/${traintopVersion()}`);
		expect(request?.body).toEqual(JSON.parse(JSON.stringify(noticeBody(notice))));
		expect(request?.body?.text).toBe(notice.text);
		expect(troubles).toEqual([]);
	});

	it('sends a URL’s user:password as Basic authorization, and never says them', async () => {
		const hook = await receiver([503]);
		const url = hook.url.replace('http://', 'http://bot:pa55word@');
		const target = sink(url);
		target.send(sampleNotice());
		const [request] = await hook.waitFor(1);
		expect(request?.headers.authorization).toBe(`Basic ${Buffer.from('bot:pa55word').toString('base64')}`);
		await hook.waitFor(4);
		await target.close();
		expect(troubles[0]).toContain('failed: HTTP 503 after 4 tries');
		expectNoSecrets(troubles);
		for (const line of troubles) expect(line).not.toMatch(/bot|pa55word/);
	});

	it('delivers on the third try after two 500s, waiting about 1 s and then 2 s', async () => {
		const hook = await receiver([500, 500, 200]);
		const target = sink(hook.url, {backoffMs: [1000, 2000, 4000]});
		target.send(sampleNotice());
		const requests = await hook.waitFor(3);
		const [first, second] = gaps(requests.map(request => request.time));
		// 1 s and 2 s, each with ±20 % jitter.
		expect(first).toBeGreaterThanOrEqual(790);
		expect(second).toBeGreaterThanOrEqual(1590);
		await target.close();
		expect(troubles).toEqual([]);
		expect(hook.requests).toHaveLength(3);
	});

	it('gives up after 4 tries, says so once for two notices, and never says the URL’s path or query', async () => {
		const hook = await receiver([500]);
		const target = sink(hook.url);
		target.send(sampleNotice({episode: 'a'}));
		target.send(sampleNotice({episode: 'b'}));
		const requests = await hook.waitFor(8);
		await target.close();
		expect(requests.map(request => episodeOf(request))).toEqual([...Array(4).fill('a'), ...Array(4).fill('b')]);
		expect(troubles).toEqual([
			`webhook: webhook http://${new URL(hook.url).host}/… failed: HTTP 500 after 4 tries; later failures are counted, not said`,
			`webhook: webhook http://${new URL(hook.url).host}/…: 2 notice(s) not delivered (2 failed)`,
		]);
		expectNoSecrets(troubles);
	});

	it('tries again after a request times out', async () => {
		const hook = await receiver(['hang', 200]);
		const target = sink(hook.url, {timeoutS: 0.5});
		target.send(sampleNotice());
		const requests = await hook.waitFor(2);
		expect(gaps(requests.map(request => request.time))[0]).toBeGreaterThanOrEqual(490);
		await target.close();
		expect(troubles).toEqual([]);
	});

	it('waits what a 429 asks for in Retry-After', async () => {
		const hook = await receiver([{status: 429, retryAfter: '1'}, 200]);
		const target = sink(hook.url);
		target.send(sampleNotice());
		const requests = await hook.waitFor(2);
		// The backoff's own wait is 20 ms here: the second second is the receiver's.
		expect(gaps(requests.map(request => request.time))[0]).toBeGreaterThanOrEqual(990);
		await target.close();
		expect(troubles).toEqual([]);
	});

	it('does not try a 404 again, and goes on with the next notice', async () => {
		const hook = await receiver([404, 200]);
		const target = sink(hook.url);
		target.send(sampleNotice({episode: 'a'}));
		target.send(sampleNotice({episode: 'b'}));
		const requests = await hook.waitFor(2);
		expect(requests.map(request => episodeOf(request))).toEqual(['a', 'b']);
		await target.close();
		expect(troubles[0]).toContain('failed: HTTP 404 (refused, not retried) after 1 try');
		expect(troubles).toHaveLength(2);
		expect(hook.requests).toHaveLength(2);
	});

	it('does not follow a redirect: the notice would go where the user did not send it', async () => {
		const hook = await receiver([302]);
		const target = sink(hook.url);
		target.send(sampleNotice());
		await hook.waitFor(1);
		await target.close();
		expect(troubles[0]).toContain('failed: HTTP 302 (a redirect, not followed) after 1 try');
		expect(hook.requests).toHaveLength(1);
	});

	it('says a network error without the URL, and counts the notices it lost', async () => {
		const hook = await receiver();
		await hook.close();
		const target = sink(hook.url);
		target.send(sampleNotice());
		await until(
			() => troubles,
			seen => seen.length === 1,
			'the give-up said',
			30_000,
		);
		expect(troubles[0]).toContain('failed: network error: ECONNREFUSED after 4 tries');
		await target.close();
		expectNoSecrets(troubles);
	});

	it('ends a request in flight soon at close, and sends nothing after', async () => {
		const hook = await receiver(['hang']);
		const target = sink(hook.url, {timeoutS: 60});
		target.send(sampleNotice({episode: 'a'}));
		target.send(sampleNotice({episode: 'b'}));
		await hook.waitFor(1);
		const start = Date.now();
		await target.close();
		// Not the request's own 60 s timeout (a loaded machine's delay is a few seconds at most).
		expect(Date.now() - start).toBeLessThan(20_000);
		expect(hook.requests).toHaveLength(1);
		expect(troubles).toEqual([
			`webhook: webhook http://${new URL(hook.url).host}/…: 2 notice(s) not delivered (2 still waiting when traintop ended)`,
		]);
	});

	it('keeps at most 100 notices waiting and says once that it fell behind; send never waits', async () => {
		const hook = await receiver(['hang']);
		const target = sink(hook.url, {timeoutS: 60});
		let slowest = 0;
		for (let index = 0; index < 150; index++) {
			const start = performance.now();
			target.send(sampleNotice({episode: `e${index}`}));
			slowest = Math.max(slowest, performance.now() - start);
		}
		expect(slowest).toBeLessThan(50);
		expect(troubles.filter(line => line.includes('fell behind'))).toHaveLength(1);
		await target.close();
		expect(troubles.at(-1)).toContain('150 notice(s) not delivered (49 dropped from a full queue, 101 still waiting');
	});
});
