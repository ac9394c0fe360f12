import type {AddressInfo} from 'node:net';
import {traintopVersion} from '../agent/version.js';
import {errorMessage, UsageError} from '../core/errors.js';
import type {Snapshot} from '../core/types.js';
import type {Session} from '../session/types.js';
import {CONTENT_TYPE, exposition} from './exposition.js';
import {scrapeSamples} from './scrape.js';
import {metricsServer} from './server.js';

// --listen: binds before the session starts (an address that cannot be had is a usage error, not a monitor that
// runs without the metrics it was asked for), then keeps each node's latest snapshot as it arrives — a reference
// kept, no work on the monitor's tick — and builds the response from them when a scrape comes.

/** Addresses only this machine reaches; any other is said on stderr. */
const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', '::1', 'localhost']);

export interface Exporter {
	/** Where it serves: `http://127.0.0.1:9101/metrics` (the port chosen when 0 was asked). */
	readonly url: string;
	/** Serves this session's nodes from now on. */
	watch(session: Session): void;
	close(): Promise<void>;
}

export async function startExporter(
	listen: {readonly host: string; readonly port: number},
	stderr: NodeJS.WritableStream,
): Promise<Exporter> {
	const latest = new Map<string, Snapshot>();
	let watched: Session | null = null;
	let unsubscribe = () => {};
	let previousScrapeS: number | null = null;
	const version = traintopVersion();
	const server = metricsServer(async () => {
		const started = performance.now();
		const many = watched?.kind === 'agents';
		const links =
			watched?.kind === 'agents'
				? new Map(watched.fleet.current().nodes.map(node => [node.name, node.state === 'connected']))
				: undefined;
		const samples = scrapeSamples({snapshots: latest, many, links, version, previousScrapeS, now: Date.now()});
		const text = await exposition(samples, many);
		previousScrapeS = (performance.now() - started) / 1000;
		return {contentType: CONTENT_TYPE, text};
	});
	const address = await bind(server, listen);
	const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}/metrics`;
	if (!LOOPBACK.has(listen.host))
		stderr.write(
			`traintop: --listen ${listen.host}: the metrics are served to anyone who can reach port ${address.port} (read-only, no actions)\n`,
		);
	stderr.write(`traintop: metrics on ${url}\n`);
	return {
		url,
		watch(session) {
			watched = session;
			unsubscribe = session.onSnapshot((node, snapshot) => latest.set(node, snapshot));
		},
		async close() {
			unsubscribe();
			await new Promise<void>(resolve => {
				server.close(() => resolve());
				server.closeAllConnections();
			});
		},
	};
}

const BIND_RULES: Readonly<Record<string, string>> = {
	EADDRINUSE: 'the address is in use (another program listens there); pick another port, or 0 for a free one',
	EADDRNOTAVAIL: 'not an address of this machine; give one of its own, or 127.0.0.1',
	EACCES: 'not allowed to bind it (ports under 1024 need privileges); pick a port from 1024 up',
	ENOTFOUND: 'no such host name; give an address (127.0.0.1, 0.0.0.0) or a name this machine resolves',
	EAI_AGAIN: 'the host name could not be resolved; give an address (127.0.0.1, 0.0.0.0)',
};

/** Listens, or throws the usage error that names --listen, the address and why. */
function bind(server: ReturnType<typeof metricsServer>, listen: {host: string; port: number}): Promise<AddressInfo> {
	const shown = `${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
	return new Promise((resolve, reject) => {
		server.once('error', error => {
			const code = (error as NodeJS.ErrnoException).code ?? '';
			reject(
				new UsageError(`--listen ${shown}: ${BIND_RULES[code] ?? `cannot listen there (${errorMessage(error)})`}`),
			);
		});
		server.listen({host: listen.host, port: listen.port, exclusive: true}, () =>
			resolve(server.address() as AddressInfo),
		);
	});
}
