import {readFileSync} from 'node:fs';
import {createServer, type Server, type Socket} from 'node:net';
import path from 'node:path';

// A local TCP server standing for NCCL's RAS service, answering as NCCL 2.28.9's src/ras/client_support.cc
// rasClientEventLoop does: commands are lines (a trailing \r dropped, matched without regard to case);
// "CLIENT PROTOCOL n" → "SERVER PROTOCOL 2\n"; "TIMEOUT n" and "SET FORMAT text" → "OK\n"; "STATUS" and
// "VERBOSE STATUS" → the answer, in the two sends NCCL makes of it (up to "Communicators..." at once, the rest once
// its collective is done), then the connection closed; anything else → "ERROR: Unknown command …\n", left open.
// The answers replayed are recorded ones (test/fixtures/nccl-ras/). It counts connections and can change its answer
// or fall silent (accept, never answer) or close, for the tests of the client and the poller.

const RAS_FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nccl-ras');

/** A recorded or source-built answer from test/fixtures/nccl-ras/ (see its README). */
export function rasFixture(name: string): string {
	return readFileSync(path.join(RAS_FIXTURES, name), 'utf8');
}

export interface FakeRasServer {
	/** 127.0.0.1:PORT */
	readonly address: string;
	/** Connections accepted so far. */
	connections(): number;
	/** Connections not yet closed. */
	open(): number;
	/** The command lines received, in order, over all connections. */
	readonly received: string[];
	/** What STATUS and VERBOSE STATUS answer from now on. */
	answer(status: string, verbose?: string): void;
	/** Accept connections but answer nothing (a hung or foreign service). */
	silence(on: boolean): void;
	close(): Promise<void>;
}

function reply(socket: Socket, line: string, answers: {status: string; verbose: string}): void {
	const lower = line.toLowerCase();
	if (lower.startsWith('client protocol ')) socket.write('SERVER PROTOCOL 2\n');
	else if (lower.startsWith('timeout ') || lower === 'set format text') socket.write('OK\n');
	else if (lower === 'status' || lower === 'verbose status') {
		const text = lower === 'status' ? answers.status : answers.verbose;
		const cut = text.indexOf('Communicators...');
		const split = cut < 0 ? text.length : cut + 'Communicators...'.length;
		socket.write(text.slice(0, split));
		setImmediate(() => socket.end(text.slice(split)));
	} else socket.write(`ERROR: Unknown command ${line}\n`);
}

/** Listens on 127.0.0.1, on `port` when given (a service back where it was), else on one the kernel picks. */
export async function startFakeRasServer(status: string, verbose = status, port = 0): Promise<FakeRasServer> {
	const answers = {status, verbose};
	const received: string[] = [];
	const sockets = new Set<Socket>();
	let accepted = 0;
	let silent = false;
	const server: Server = createServer(socket => {
		accepted++;
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.on('error', () => {});
		let pending = '';
		socket.on('data', data => {
			if (silent) return;
			pending += data.toString('latin1');
			for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
				const line = pending.slice(0, end).replace(/\r$/, '');
				pending = pending.slice(end + 1);
				received.push(line);
				reply(socket, line, answers);
			}
		});
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => resolve());
	});
	const bound = (server.address() as {port: number}).port;
	return {
		address: `127.0.0.1:${bound}`,
		connections: () => accepted,
		open: () => sockets.size,
		received,
		answer(nextStatus, nextVerbose = nextStatus) {
			answers.status = nextStatus;
			answers.verbose = nextVerbose;
		},
		silence(on) {
			silent = on;
		},
		close() {
			for (const socket of sockets) socket.destroy();
			return new Promise(resolve => server.close(() => resolve()));
		},
	};
}
