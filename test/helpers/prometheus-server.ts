import type {ChildProcess} from 'node:child_process';
import {accessSync, constants, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {spawnInOwnGroup, terminateGroup} from '../../src/system/process-group.js';
import {freePort} from './free-port.js';

// A real Prometheus server for a test: Debian's /usr/bin/prometheus (2.42 here; .ci/run installs the package), started
// as the leader of its own process group (src/system/process-group.ts: the orphan reaper ends it even if the test's
// worker is killed) on a free port, with a generated prometheus.yml and its TSDB in a temporary directory that close()
// removes. Scrape and evaluation every 1 s so that a test waits seconds, not the default minute.
// The HTTP API used is Prometheus's stable v1 (docs: prometheus.io/docs/prometheus/2.42/querying/api/):
// GET /api/v1/query?query=… → {status, data: {resultType: "vector", result: [{metric, value: [t, "v"]}]}},
// GET /api/v1/targets → {data: {activeTargets: [{labels, scrapeUrl, health, lastError, lastScrape}]}}, and
// GET /-/ready (200 once the TSDB is open and the server serves).

const CANDIDATES = ['/usr/bin/prometheus', '/usr/local/bin/prometheus'];

/** The prometheus binary to run, or null when none is installed (the caller skips, saying so). */
export function prometheusBinary(): string | null {
	const onPath = (process.env.PATH ?? '').split(path.delimiter).map(dir => path.join(dir, 'prometheus'));
	for (const candidate of [...CANDIDATES, ...onPath]) {
		try {
			accessSync(candidate, constants.X_OK);
			return candidate;
		} catch {
			// not here
		}
	}
	return null;
}

/** One element of an instant vector, its value as a number (Prometheus sends it as a string: "NaN", "+Inf" too). */
export interface PromSample {
	readonly metric: Readonly<Record<string, string>>;
	readonly value: number;
	/** The evaluation time, in seconds since the epoch. */
	readonly time: number;
}

export interface PromTarget {
	readonly scrapeUrl: string;
	readonly health: string;
	readonly lastError: string;
	readonly lastScrape: string;
	readonly labels: Readonly<Record<string, string>>;
}

export interface PrometheusServer {
	/** http://127.0.0.1:PORT */
	readonly url: string;
	/** The instant query's vector (an error from Prometheus, such as a PromQL syntax error, throws with its text). */
	query(promql: string): Promise<PromSample[]>;
	/**
	 * Polls `promql` every 500 ms until `ok` holds for its vector, and returns that vector. At the deadline it throws
	 * with what was awaited, the last vector and every target's health and last scrape error, so a failure says why.
	 */
	waitFor(promql: string, ok: (vector: PromSample[]) => boolean, timeoutMs?: number): Promise<PromSample[]>;
	targets(): Promise<PromTarget[]>;
	/** What prometheus printed last (its log, on stderr). */
	log(): string;
	/** Ends its process group (SIGTERM, then SIGKILL) and removes the temporary directory. */
	close(): Promise<void>;
}

export interface PrometheusOptions {
	/** host:port of each /metrics endpoint to scrape, one scrape job. */
	readonly targets: readonly string[];
	readonly jobName?: string;
	/** Keep the scraped `job` label as the exporter sets it (honor_labels): traintop's own `job` label names the job. */
	readonly honorLabels?: boolean;
	/** How long to wait for /-/ready. */
	readonly readyTimeoutMs?: number;
}

interface ApiAnswer<T> {
	readonly status: 'success' | 'error';
	readonly data?: T;
	readonly errorType?: string;
	readonly error?: string;
}

function config(options: PrometheusOptions): string {
	const targets = options.targets.map(target => `'${target}'`).join(', ');
	return [
		'global:',
		'  scrape_interval: 1s',
		'  scrape_timeout: 1s',
		'  evaluation_interval: 1s',
		'scrape_configs:',
		`  - job_name: '${options.jobName ?? 'traintop'}'`,
		`    honor_labels: ${options.honorLabels ?? true}`,
		'    metrics_path: /metrics',
		'    static_configs:',
		`      - targets: [${targets}]`,
		'',
	].join('\n');
}

const LOG_KEEP = 16_000;

function keepLog(child: ChildProcess): () => string {
	let text = '';
	const add = (chunk: Buffer): void => {
		text = (text + chunk.toString()).slice(-LOG_KEEP);
	};
	child.stdout?.on('data', add);
	child.stderr?.on('data', add);
	return () => text;
}

async function getJson<T>(url: string): Promise<T> {
	const response = await fetch(url, {signal: AbortSignal.timeout(10_000)});
	const body = (await response.json()) as ApiAnswer<T>;
	if (body.status !== 'success' || body.data === undefined) {
		throw new Error(`${url}: ${body.errorType ?? response.status} ${body.error ?? ''}`.trim());
	}
	return body.data;
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** Starts prometheus scraping `options.targets`; resolves once /-/ready answers 200. */
export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
	const binary = prometheusBinary();
	if (binary === null) throw new Error('no prometheus binary (Debian: apt-get install prometheus)');
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-prometheus-'));
	const configFile = path.join(dir, 'prometheus.yml');
	writeFileSync(configFile, config(options));
	const port = freePort();
	const url = `http://127.0.0.1:${port}`;
	const child = spawnInOwnGroup(binary, [
		`--config.file=${configFile}`,
		`--storage.tsdb.path=${path.join(dir, 'data')}`,
		`--web.listen-address=127.0.0.1:${port}`,
		// Its console templates are not used; Debian's defaults point into /etc/prometheus, which a test must not need.
		`--web.console.templates=${path.join(dir, 'consoles')}`,
		`--web.console.libraries=${path.join(dir, 'console_libraries')}`,
	]);
	const log = keepLog(child);
	let exited: string | null = null;
	child.once('exit', (code, signal) => {
		exited = `exited ${code ?? signal}`;
	});
	let closed = false;
	const close = async (): Promise<void> => {
		if (closed) return;
		closed = true;
		await terminateGroup(child, 5_000);
		rmSync(dir, {recursive: true, force: true});
	};

	const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
	for (;;) {
		if (exited !== null) {
			await close();
			throw new Error(`prometheus ${exited} before it was ready; its log:\n${log()}`);
		}
		const ready = await fetch(`${url}/-/ready`, {signal: AbortSignal.timeout(5_000)}).then(
			response => response.ok,
			() => false,
		);
		if (ready) break;
		if (Date.now() > deadline) {
			await close();
			throw new Error(`prometheus not ready at ${url}/-/ready after ${options.readyTimeoutMs ?? 60_000} ms:\n${log()}`);
		}
		await sleep(200);
	}

	const query = async (promql: string): Promise<PromSample[]> => {
		const data = await getJson<{
			resultType: string;
			result: {metric: Record<string, string>; value: [number, string]}[];
		}>(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
		if (data.resultType !== 'vector') throw new Error(`${promql}: a ${data.resultType}, not an instant vector`);
		return data.result.map(({metric, value}) => ({metric, value: Number(value[1]), time: value[0]}));
	};
	const targets = async (): Promise<PromTarget[]> =>
		(await getJson<{activeTargets: PromTarget[]}>(`${url}/api/v1/targets`)).activeTargets;

	return {
		url,
		query,
		targets,
		log,
		close,
		async waitFor(promql, ok, timeoutMs = 120_000) {
			const until = Date.now() + timeoutMs;
			let last: PromSample[] | string = [];
			for (;;) {
				try {
					last = await query(promql);
					if (ok(last)) return last;
				} catch (error) {
					last = String(error);
				}
				if (Date.now() > until) {
					const scrapes = await targets().then(
						list => list.map(t => `${t.scrapeUrl}: ${t.health} ${t.lastError} (last ${t.lastScrape})`).join('\n'),
						(error: unknown) => `targets unreadable: ${String(error)}`,
					);
					throw new Error(
						`${promql}: not as awaited after ${timeoutMs} ms; last: ${JSON.stringify(last)}\ntargets:\n${scrapes}`,
					);
				}
				await sleep(500);
			}
		},
	};
}
