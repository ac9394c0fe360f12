import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';

// traintop's one listening port: read-only by construction. It answers GET and HEAD of /metrics (and a pointer at
// /), never reads a request body, takes no parameter and has no route that acts. Slow or idle clients are cut by
// the timeouts, and the connections are capped, so a scraper gone wrong cannot pile up sockets in the monitor.

const HEADERS_TIMEOUT_MS = 5000;
const REQUEST_TIMEOUT_MS = 5000;
const KEEP_ALIVE_TIMEOUT_MS = 5000;
const MAX_CONNECTIONS = 16;
/** How often node:http looks for requests past their timeouts (its default, 30 s, let a stalled client stay 35 s). */
const TIMEOUT_CHECK_MS = 1000;
const INDEX = 'traintop metrics exporter (read-only)\nscrape /metrics in the Prometheus text format\n';

export interface MetricsBody {
	readonly contentType: string;
	readonly text: string;
}

/** An HTTP server that serves `metrics()` at /metrics and refuses everything else; not yet listening. */
export function metricsServer(metrics: () => Promise<MetricsBody>): Server {
	const server = createServer(
		{
			requestTimeout: REQUEST_TIMEOUT_MS,
			headersTimeout: HEADERS_TIMEOUT_MS,
			connectionsCheckingInterval: TIMEOUT_CHECK_MS,
		},
		(request, response) => {
			answer(request, response, metrics).catch(() => response.destroy());
		},
	);
	server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
	server.maxConnections = MAX_CONNECTIONS;
	return server;
}

async function answer(
	request: IncomingMessage,
	response: ServerResponse,
	metrics: () => Promise<MetricsBody>,
): Promise<void> {
	const method = request.method ?? '';
	if (method !== 'GET' && method !== 'HEAD') {
		reply(response, 405, 'only GET and HEAD: this endpoint is read-only\n', {Allow: 'GET, HEAD'});
		return;
	}
	// The query string is ignored: nothing a request says changes what is served.
	const path = (request.url ?? '').split('?')[0];
	if (path === '/metrics') {
		let body: MetricsBody;
		try {
			body = await metrics();
		} catch {
			reply(response, 500, 'the scrape failed\n');
			return;
		}
		reply(response, 200, body.text, {'Content-Type': body.contentType});
	} else if (path === '/') reply(response, 200, INDEX);
	else reply(response, 404, 'not found: the metrics are at /metrics\n');
}

/** Writes the whole answer at once; a HEAD gets the same headers without the body (node:http leaves it out). */
function reply(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
	response.writeHead(status, {
		'Content-Type': 'text/plain; charset=utf-8',
		'Content-Length': Buffer.byteLength(text),
		...headers,
	});
	response.end(text);
}
