import {request} from 'node:http';

// Plain HTTP for the exporter's tests: node:http, one connection per request (no agent keeps a socket open), the
// status, the headers and the body as text.

export interface Answer {
	readonly status: number;
	readonly headers: Readonly<Record<string, string | string[] | undefined>>;
	readonly body: string;
}

export function ask(url: string, method = 'GET', body?: string): Promise<Answer> {
	return new Promise((resolve, reject) => {
		const outgoing = request(url, {method, agent: false, timeout: 10_000}, response => {
			let text = '';
			response.setEncoding('utf8');
			response.on('data', (chunk: string) => {
				text += chunk;
			});
			response.on('end', () => resolve({status: response.statusCode ?? 0, headers: response.headers, body: text}));
		});
		outgoing.on('timeout', () => outgoing.destroy(new Error(`${method} ${url}: no answer in 10 s`)));
		outgoing.on('error', reject);
		outgoing.end(body);
	});
}

/** GETs `url` until `ok` holds for the body (a monitor's first samples take a moment); throws with the last body. */
export async function scrapeUntil(url: string, ok: (body: string) => boolean, what: string, timeoutMs = 30_000) {
	const deadline = Date.now() + timeoutMs;
	let last = '';
	for (;;) {
		const answer = await ask(url);
		last = answer.body;
		if (answer.status === 200 && ok(last)) return last;
		if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms; last body:\n${last}`);
		await new Promise(resolve => setTimeout(resolve, 100));
	}
}

/** The URL traintop said it serves on (`traintop: metrics on http://…/metrics`), or null while it has not said. */
export function servedAt(stderr: string): string | null {
	return /traintop: metrics on (http:\/\/\S+\/metrics)\n/.exec(stderr)?.[1] ?? null;
}
