import {createServer, type IncomingMessage, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {until} from './until.js';

// A real webhook receiver for the tests: a local HTTP server that records every request and answers each by a
// script (a status in turn, a Retry-After, or no answer at all), as Slack's incoming webhooks and the like would.

/** One answer: a status (with an optional Retry-After), or `hang` (the request is read and never answered). */
export type ReceiverAnswer = number | {readonly status: number; readonly retryAfter?: string} | 'hang';

export interface ReceivedRequest {
	/** Epoch ms when the request's body had arrived. */
	readonly time: number;
	readonly method: string;
	/** The path and query the request was sent to. */
	readonly path: string;
	readonly headers: IncomingMessage['headers'];
	/** The body, parsed as JSON (null when it was not JSON). */
	readonly body: Record<string, unknown> | null;
	readonly raw: string;
}

export interface WebhookReceiver {
	/** `http://127.0.0.1:PORT/hook/secret-token?key=secret-key`: with a path and query to prove they are never said. */
	readonly url: string;
	readonly requests: readonly ReceivedRequest[];
	/** Resolves with the requests once `count` have arrived; throws after `timeoutMs`. */
	waitFor(count: number, timeoutMs?: number): Promise<readonly ReceivedRequest[]>;
	close(): Promise<void>;
}

/** The secrets in the receiver's URL, for asserting they never appear in what traintop says. */
export const RECEIVER_SECRETS = ['secret-token', 'secret-key'] as const;

/**
 * `answers` are used in turn, one per request; after the last, the last one again (none given: 200 always). A hanging
 * request stays open until the client gives up or close() ends it.
 */
export async function startWebhookReceiver(
	options: {answers?: readonly ReceiverAnswer[]} = {},
): Promise<WebhookReceiver> {
	const answers = options.answers ?? [200];
	const requests: ReceivedRequest[] = [];
	const hanging = new Set<ServerResponse>();
	const server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const raw = Buffer.concat(chunks).toString('utf8');
			const answer = answers[Math.min(requests.length, answers.length - 1)] ?? 200;
			requests.push({
				time: Date.now(),
				method: request.method ?? '',
				path: request.url ?? '',
				headers: request.headers,
				body: parsed(raw),
				raw,
			});
			if (answer === 'hang') {
				hanging.add(response);
				response.on('close', () => hanging.delete(response));
				return;
			}
			const status = typeof answer === 'number' ? answer : answer.status;
			const headers: Record<string, string> = {'content-type': 'text/plain'};
			if (typeof answer === 'object' && answer.retryAfter !== undefined) headers['retry-after'] = answer.retryAfter;
			response.writeHead(status, headers).end(status < 300 ? 'ok' : 'no');
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const {port} = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/hook/${RECEIVER_SECRETS[0]}?key=${RECEIVER_SECRETS[1]}`,
		requests,
		waitFor: (count, timeoutMs = 30_000) =>
			until(
				() => requests,
				seen => seen.length >= count,
				`${count} webhook request(s)`,
				timeoutMs,
			).then(seen => [...seen]),
		close: () =>
			new Promise<void>(resolve => {
				for (const response of hanging) response.destroy();
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

function parsed(raw: string): Record<string, unknown> | null {
	try {
		const value: unknown = JSON.parse(raw);
		return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
	} catch {
		return null;
	}
}
