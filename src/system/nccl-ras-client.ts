import {connect, type Socket} from 'node:net';

// One exchange with NCCL's RAS service (NCCL >= 2.24; listens on localhost:28028, or NCCL_RAS_ADDR), done as NCCL's
// own client does it (NCCL 2.28.9, src/ras/client.cc connectToNCCL and getNCCLStatus, with its default options):
//   client: "CLIENT PROTOCOL 2\n"          (NCCL_RAS_CLIENT_PROTOCOL, src/ras/ras_internal.h)
//   server: "SERVER PROTOCOL 2\n"          (src/ras/client_support.cc rasClientEventLoop; a mismatched number is
//                                           only a warning in NCCL's client, so it is here too)
//   client: "STATUS\n" or "VERBOSE STATUS\n"
//   server: the answer, then it closes the connection: the close is the only end marker (rasClientEventLoop
//           terminates the client once its send queue is empty in RAS_CLIENT_FINISHED).
// NCCL's client sends no "TIMEOUT" or "SET FORMAT" line by default, and neither does this one. It differs on purpose
// in what it does on trouble: NCCL's client retries a timed-out handshake forever; this one never retries (the
// poller decides when to ask again) and bounds everything: connecting and the handshake 1 s each (NCCL's
// TIMEOUT_INCREMENT), the answer RAS_COLLECTIVE_LEG_TIMEOUT_SEC + RAS_COLLECTIVE_EXTRA_TIMEOUT_SEC + 1 = 11 s, the
// socket timeout NCCL's client reads it with (the service waits up to 10 s for unresponsive peers: the very answer
// wanted during a hang), and 256 KiB. It never throws.

export type NcclRasCommand = 'STATUS' | 'VERBOSE STATUS';

export type NcclRasReply =
	| {readonly ok: true; readonly text: string}
	/** `listening`: something accepted the connection (a wrong or slow service) rather than nothing being there. */
	| {readonly ok: false; readonly reason: string; readonly listening: boolean};

export interface NcclRasExchangeOptions {
	readonly connectTimeoutMs?: number;
	readonly handshakeTimeoutMs?: number;
	readonly answerTimeoutMs?: number;
	readonly maxBytes?: number;
	/** Aborting ends the exchange at once and closes its socket. */
	readonly signal?: AbortSignal;
}

const PROTOCOL = 2;
const CONNECT_TIMEOUT_MS = 1000;
const HANDSHAKE_TIMEOUT_MS = 1000;
const ANSWER_TIMEOUT_MS = 11_000;
const MAX_BYTES = 256 * 1024;

/** "HOST:PORT" (the `--nccl-ras` setting) → its parts; null when it is not that. */
export function rasAddress(address: string): {host: string; port: number} | null {
	const colon = address.lastIndexOf(':');
	if (colon <= 0) return null;
	const port = Number(address.slice(colon + 1));
	if (!/^\d{1,5}$/.test(address.slice(colon + 1)) || port < 1 || port > 65_535) return null;
	return {host: address.slice(0, colon), port};
}

const shown = (bytes: Buffer): string => JSON.stringify(bytes.toString('utf8').slice(0, 60));

function refusal(error: NodeJS.ErrnoException, address: string): string {
	if (error.code === 'ECONNREFUSED') return `nothing listens at ${address} (connection refused)`;
	if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return `cannot resolve the host of ${address}`;
	return `${address}: ${error.code ?? error.message}`;
}

/** Connects, hands shakes, sends `command`, reads the answer to the server's close; resolves to it or a reason. */
export function exchangeNcclRas(
	address: string,
	command: NcclRasCommand,
	options: NcclRasExchangeOptions = {},
): Promise<NcclRasReply> {
	const where = rasAddress(address);
	if (where === null) return Promise.resolve({ok: false, reason: `not HOST:PORT: ${address}`, listening: false});
	if (options.signal?.aborted) return Promise.resolve({ok: false, reason: 'stopped', listening: false});
	return new Promise(resolve => {
		let phase: 'connect' | 'handshake' | 'answer' | 'done' = 'connect';
		let handshake = Buffer.alloc(0);
		const chunks: Buffer[] = [];
		let size = 0;
		let timer: NodeJS.Timeout | null = null;
		const socket: Socket = connect({host: where.host, port: where.port});
		// An exchange in flight must not keep traintop running.
		socket.unref();

		const finish = (reply: NcclRasReply): void => {
			if (phase === 'done') return;
			const connected = phase !== 'connect';
			phase = 'done';
			if (timer) clearTimeout(timer);
			options.signal?.removeEventListener('abort', onAbort);
			socket.destroy();
			resolve(reply.ok ? reply : {...reply, listening: reply.listening || connected});
		};
		const fail = (reason: string): void => finish({ok: false, reason, listening: false});
		const limit = (ms: number, what: string): void => {
			if (timer) clearTimeout(timer);
			timer = setTimeout(() => fail(`${address}: no ${what} within ${ms} ms`), ms);
			timer.unref();
		};
		function onAbort(): void {
			fail('stopped');
		}
		options.signal?.addEventListener('abort', onAbort);
		limit(options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, 'connection');

		socket.on('connect', () => {
			phase = 'handshake';
			limit(options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS, 'handshake answer');
			socket.write(`CLIENT PROTOCOL ${PROTOCOL}\n`);
		});
		socket.on('data', (data: Buffer) => {
			if (phase === 'handshake') {
				handshake = Buffer.concat([handshake, data]);
				const end = handshake.indexOf(0x0a);
				if (end < 0) {
					if (handshake.length > 1024) fail(`${address} is not NCCL's RAS service: it said ${shown(handshake)}`);
					return;
				}
				// As NCCL's client: only the prefix is checked; bytes after the line would be its read's leftovers.
				if (!/^SERVER PROTOCOL /i.test(handshake.subarray(0, end).toString('latin1'))) {
					fail(`${address} is not NCCL's RAS service: it said ${shown(handshake.subarray(0, end))}`);
					return;
				}
				phase = 'answer';
				limit(options.answerTimeoutMs ?? ANSWER_TIMEOUT_MS, 'complete answer');
				socket.write(`${command}\n`);
				return;
			}
			if (phase !== 'answer') return;
			size += data.length;
			if (size > (options.maxBytes ?? MAX_BYTES)) {
				fail(`${address}: answer over ${options.maxBytes ?? MAX_BYTES} bytes`);
				return;
			}
			chunks.push(data);
		});
		socket.on('end', () => {
			if (phase === 'answer') finish({ok: true, text: Buffer.concat(chunks).toString('utf8')});
			else fail(`${address} closed the connection during the handshake`);
		});
		socket.on('error', (error: NodeJS.ErrnoException) => fail(refusal(error, address)));
		socket.on('close', () => fail(`${address} closed the connection`));
	});
}
