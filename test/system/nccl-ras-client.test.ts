import {createServer, type Socket} from 'node:net';
import {afterEach, describe, expect, it} from 'vitest';
import {exchangeNcclRas, rasAddress} from '../../src/system/nccl-ras-client.js';
import {type FakeRasServer, rasFixture, startFakeRasServer} from '../helpers/fake-ras-server.js';
import {until} from '../helpers/until.js';

// The client against a local TCP server answering as NCCL 2.28.9's RAS service (src/ras/client_support.cc), the
// bytes it sends checked against NCCL 2.28.9's own client (src/ras/client.cc: "CLIENT PROTOCOL 2\n", then
// "STATUS\n" or "VERBOSE STATUS\n", nothing else by default), over real sockets.

const STATUS = rasFixture('status-2.28.9.txt');
const servers: FakeRasServer[] = [];

async function fake(status = STATUS): Promise<FakeRasServer> {
	const server = await startFakeRasServer(status);
	servers.push(server);
	return server;
}

/** A port nothing listens on: one the kernel gave a server that is closed again. */
async function closedPort(): Promise<string> {
	const server = await fake();
	await server.close();
	return server.address;
}

afterEach(async () => {
	await Promise.all(servers.splice(0).map(s => s.close()));
});

describe('exchangeNcclRas', () => {
	it("sends NCCL's client's lines and reads the answer, byte for byte, to the server's close", async () => {
		const server = await fake();
		const reply = await exchangeNcclRas(server.address, 'STATUS');
		expect(reply).toEqual({ok: true, text: STATUS});
		expect(server.received).toEqual(['CLIENT PROTOCOL 2', 'STATUS']);
		expect(server.connections()).toBe(1);
		await until(
			() => server.open(),
			n => n === 0,
			'the connection closed',
		);
	});

	it('asks VERBOSE STATUS when told to', async () => {
		const verbose = rasFixture('status-error-2.28.9.txt');
		const server = await startFakeRasServer(STATUS, verbose);
		servers.push(server);
		expect(await exchangeNcclRas(server.address, 'VERBOSE STATUS')).toEqual({ok: true, text: verbose});
		expect(server.received).toEqual(['CLIENT PROTOCOL 2', 'VERBOSE STATUS']);
	});

	it('says nothing listens at a refused port, at once', async () => {
		const address = await closedPort();
		const started = Date.now();
		const reply = await exchangeNcclRas(address, 'STATUS');
		expect(reply).toEqual({ok: false, reason: `nothing listens at ${address} (connection refused)`, listening: false});
		// The refusal's own words say it was not the 1 s handshake timeout; nor was it retried for long.
		expect(Date.now() - started).toBeLessThan(5000);
	});

	it('gives up on a service that accepts but never answers the handshake, after its 1 s', async () => {
		const server = await fake();
		server.silence(true);
		const started = Date.now();
		const reply = await exchangeNcclRas(server.address, 'STATUS');
		expect(reply).toEqual({
			ok: false,
			reason: `${server.address}: no handshake answer within 1000 ms`,
			listening: true,
		});
		expect(Date.now() - started).toBeGreaterThanOrEqual(900);
		await until(
			() => server.open(),
			n => n === 0,
			'the connection closed',
		);
	});

	it('gives up on an answer that never ends, after the answer timeout', async () => {
		// A server that shakes hands as NCCL does, then sends part of the answer and never closes.
		const sockets: Socket[] = [];
		const server = createServer(socket => {
			sockets.push(socket);
			socket.on('error', () => {});
			socket.once('data', () => {
				socket.write('SERVER PROTOCOL 2\n');
				socket.once('data', () => socket.write(STATUS.slice(0, 100)));
			});
		});
		await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
		const address = `127.0.0.1:${(server.address() as {port: number}).port}`;
		try {
			const reply = await exchangeNcclRas(address, 'STATUS', {answerTimeoutMs: 300});
			expect(reply).toEqual({ok: false, reason: `${address}: no complete answer within 300 ms`, listening: true});
		} finally {
			for (const socket of sockets) socket.destroy();
			await new Promise(resolve => server.close(resolve));
		}
	});

	it('refuses what is not NCCL, and an answer past its byte limit', async () => {
		// A web server: it answers and closes; resume() reads what the client sent, so its side sees the close too.
		const foreign = createServer(socket => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n').resume());
		await new Promise<void>(resolve => foreign.listen(0, '127.0.0.1', resolve));
		const address = `127.0.0.1:${(foreign.address() as {port: number}).port}`;
		try {
			const reply = await exchangeNcclRas(address, 'STATUS');
			expect(reply).toEqual({
				ok: false,
				reason: `${address} is not NCCL's RAS service: it said "HTTP/1.1 400 Bad Request\\r"`,
				listening: true,
			});
		} finally {
			await new Promise(resolve => foreign.close(resolve));
		}
		const server = await fake();
		const reply = await exchangeNcclRas(server.address, 'STATUS', {maxBytes: 100});
		expect(reply).toEqual({ok: false, reason: `${server.address}: answer over 100 bytes`, listening: true});
	});

	it('ends at once when aborted, its socket closed', async () => {
		const server = await fake();
		server.silence(true);
		const abort = new AbortController();
		const pending = exchangeNcclRas(server.address, 'STATUS', {signal: abort.signal});
		await until(
			() => server.open(),
			n => n === 1,
			'the connection accepted',
		);
		abort.abort();
		expect(await pending).toEqual({ok: false, reason: 'stopped', listening: true});
		await until(
			() => server.open(),
			n => n === 0,
			'the connection closed',
		);
	});

	it('reads HOST:PORT as the --nccl-ras setting writes it', () => {
		expect(rasAddress('127.0.0.1:28028')).toEqual({host: '127.0.0.1', port: 28028});
		expect(rasAddress('node7:28028')).toEqual({host: 'node7', port: 28028});
		for (const bad of ['28028', ':28028', 'host:', 'host:0', 'host:70000', 'host:2a'])
			expect(rasAddress(bad)).toBeNull();
	});
});
