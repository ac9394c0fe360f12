import {connect, createServer, type Server, type Socket} from 'node:net';
import {Writable} from 'node:stream';
import {afterEach, describe, expect, test} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import {type Exporter, startExporter} from '../../src/exporter/start.js';
import {closeSessions, testSession} from '../helpers/session.js';
import {gpu, ScriptedSources} from '../helpers/snapshots.js';
import {parseExposition, valueAt} from './exposition-text.js';
import {ask, scrapeUntil, servedAt} from './http.js';

// The listening port itself, in this process: a real server on a real socket, a real session's snapshots behind it.

const started: Exporter[] = [];
afterEach(async () => {
	await Promise.all(started.splice(0).map(exporter => exporter.close()));
	await closeSessions();
});

function collector(): {stream: Writable; text: () => string} {
	let text = '';
	const stream = new Writable({
		write(chunk, _encoding, done) {
			text += String(chunk);
			done();
		},
	});
	return {stream, text: () => text};
}

async function exporterOn(host: string, port = 0): Promise<{exporter: Exporter; stderr: string}> {
	const err = collector();
	const exporter = await startExporter({host, port}, err.stream);
	started.push(exporter);
	return {exporter, stderr: err.text()};
}

describe('the metrics server', () => {
	test('serves a session at /metrics; says where on stderr; HEAD has the headers and no body', async () => {
		const {exporter, stderr} = await exporterOn('127.0.0.1');
		expect(stderr).toMatch(/^traintop: metrics on http:\/\/127\.0\.0\.1:\d+\/metrics\n$/);
		const url = servedAt(stderr)!;
		expect(url).toBe(exporter.url);
		const sources = new ScriptedSources();
		sources.setGpus(gpu(0, 40), gpu(1, 95));
		exporter.watch(await testSession({selector: {kind: 'match', pattern: /no-such-job-[0-9]{40}/}, sources}));
		const body = await scrapeUntil(url, text => text.includes('traintop_gpu_memory_used_percent'), 'GPU series');
		const parsed = parseExposition(body);
		expect(valueAt(parsed, 'traintop_host_ram_used_percent', {host: 'node-7'})).toBe(10);
		expect(valueAt(parsed, 'traintop_gpu_memory_used_percent', {gpu: '1', uuid: 'GPU-1'})).toBe(95);
		const get = await ask(url);
		expect(get.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
		const head = await ask(url, 'HEAD');
		expect(head.status).toBe(200);
		expect(head.body).toBe('');
		expect(head.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
		expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
		// After a first scrape, the next one says how long the previous took.
		expect(valueAt(parseExposition((await ask(url)).body), 'traintop_scrape_duration_seconds')).toBeGreaterThan(0);
	});

	test('GET / points at /metrics; any other path is 404; any other method 405 with Allow, its body unread', async () => {
		const {exporter} = await exporterOn('127.0.0.1');
		const root = exporter.url.replace(/metrics$/, '');
		const index = await ask(root);
		expect(index.status).toBe(200);
		expect(index.body.trimEnd().split('\n')).toHaveLength(2);
		expect(index.body).toContain('/metrics');
		expect((await ask(`${root}nope`)).status).toBe(404);
		expect((await ask(`${root}metrics/x`)).status).toBe(404);
		expect((await ask(`${exporter.url}?name[]=x`)).status).toBe(200);
		for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
			const refused = await ask(exporter.url, method, method === 'POST' ? 'x'.repeat(1 << 20) : undefined);
			expect([method, refused.status, refused.headers.allow]).toEqual([method, 405, 'GET, HEAD']);
		}
		expect((await ask(`${root}nope`, 'DELETE')).status).toBe(405);
	});

	test('16 clients that never finish their headers fill it; the 17th is refused; the timeout frees them', async () => {
		const {exporter} = await exporterOn('127.0.0.1');
		const {port} = new URL(exporter.url);
		const stalled: Socket[] = [];
		const closed: Promise<number>[] = [];
		const started = Date.now();
		for (let i = 0; i < 16; i++) {
			const socket = connect(Number(port), '127.0.0.1');
			await new Promise(resolve => socket.once('connect', resolve));
			socket.on('error', () => {});
			// Read what comes (the server's 408), so that its close is seen.
			socket.resume();
			socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
			closed.push(new Promise(resolve => socket.once('close', () => resolve(Date.now() - started))));
			stalled.push(socket);
		}
		try {
			await expect(ask(exporter.url)).rejects.toThrow(/ECONNRESET|socket hang up/);
			// The headers timeout (5 s, checked each second) ends every stalled one; then a scrape is served again.
			const after = await Promise.all(closed);
			for (const ms of after) expect(ms).toBeLessThan(20_000);
			expect((await ask(exporter.url)).status).toBe(200);
		} finally {
			for (const socket of stalled) socket.destroy();
		}
	}, 30_000);

	test('an address in use is a usage error naming --listen and the address', async () => {
		const taken: Server = createServer();
		await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve));
		const port = (taken.address() as {port: number}).port;
		try {
			const refused = startExporter({host: '127.0.0.1', port}, collector().stream);
			await expect(refused).rejects.toBeInstanceOf(UsageError);
			await expect(refused).rejects.toThrow(`--listen 127.0.0.1:${port}: the address is in use`);
		} finally {
			taken.close();
		}
	});

	test('an address not of this machine is a usage error too', async () => {
		await expect(startExporter({host: '192.0.2.1', port: 0}, collector().stream)).rejects.toThrow(
			/^--listen 192\.0\.2\.1:0: not an address of this machine/,
		);
	});

	test('a wider address: one warning line that anyone who can reach the port sees the metrics', async () => {
		const {stderr} = await exporterOn('0.0.0.0');
		const lines = stderr.trimEnd().split('\n');
		expect(lines).toHaveLength(2);
		expect(lines[0]).toMatch(
			/^traintop: --listen 0\.0\.0\.0: the metrics are served to anyone who can reach port \d+ \(read-only, no actions\)$/,
		);
		expect(lines[1]).toMatch(/^traintop: metrics on http:\/\/0\.0\.0\.0:\d+\/metrics$/);
		const loopback = await exporterOn('localhost');
		expect(loopback.stderr.split('\n')[0]).toMatch(/^traintop: metrics on /);
	});
});
