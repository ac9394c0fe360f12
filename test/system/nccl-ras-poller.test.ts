import {afterEach, describe, expect, it} from 'vitest';
import type {NcclRasState} from '../../src/core/progress-types.js';
import {exchangeNcclRas} from '../../src/system/nccl-ras-client.js';
import {type NcclRasExchange, NcclRasPoller} from '../../src/system/nccl-ras-poller.js';
import {type FakeRasServer, rasFixture, startFakeRasServer} from '../helpers/fake-ras-server.js';
import {until} from '../helpers/until.js';

// The poller over real sockets: a fake of NCCL 2.28.9's RAS service replaying its recorded answer
// (test/fixtures/nccl-ras/status-2.28.9.txt) and one built from its source with a communicator in error, a closed
// port, and a port that accepts but never answers. Minutes are simulated by a clock the test drives (the poller's
// `now` and `after`); the exchanges themselves are real.

const OK = rasFixture('status-2.28.9.txt');
const ERROR = rasFixture('status-error-2.28.9.txt');
const MINUTE = 60_000;

const servers: FakeRasServer[] = [];
const pollers: NcclRasPoller[] = [];

afterEach(async () => {
	for (const poller of pollers.splice(0)) poller.stop();
	await Promise.all(servers.splice(0).map(s => s.close()));
});

async function fake(status = OK): Promise<FakeRasServer> {
	const server = await startFakeRasServer(status);
	servers.push(server);
	return server;
}

/** A clock the test moves: the poller's timers fire when it passes their time, never by themselves. */
function testClock() {
	let now = 1_000_000;
	const timers: {at: number; fire: () => void; live: boolean}[] = [];
	const live = () => timers.filter(t => t.live);
	return {
		now: () => now,
		after(ms: number, fire: () => void): () => void {
			const timer = {at: now + ms, fire, live: true};
			timers.push(timer);
			return () => {
				timer.live = false;
			};
		},
		pending: () => live().length,
		/** Moves `ms` on, firing each timer due; after each, waits for the poller to be idle again (its next timer set). */
		async advance(ms: number): Promise<void> {
			const end = now + ms;
			for (;;) {
				await until(live, list => list.length > 0, 'the poller waiting for its next ask');
				const next = live().sort((a, b) => a.at - b.at)[0]!;
				if (next.at > end) break;
				now = next.at;
				next.live = false;
				next.fire();
			}
			now = end;
		},
	};
}

function poller(
	address: string,
	clock: ReturnType<typeof testClock>,
	exchange?: NcclRasExchange,
): {poller: NcclRasPoller; states: NcclRasState[]} {
	const p = new NcclRasPoller({address, now: clock.now, after: clock.after, ...(exchange ? {exchange} : {})});
	pollers.push(p);
	const states: NcclRasState[] = [];
	p.onChange(state => states.push(state));
	return {poller: p, states};
}

/** The real exchange, its calls counted and timed (by the test's clock). */
function counted(clock: ReturnType<typeof testClock>): {exchange: NcclRasExchange; calls: number[]} {
	const calls: number[] = [];
	return {
		calls,
		exchange: (address, command, signal) => {
			calls.push(clock.now());
			return exchangeNcclRas(address, command, {signal});
		},
	};
}

describe('NcclRasPoller', () => {
	it('reads and parses the answer, then reports what changed when the answer changes', async () => {
		const server = await fake();
		const clock = testClock();
		const {poller: p, states} = poller(server.address, clock);
		expect(p.current()).toBeNull();
		p.start();
		const first = await until(
			() => p.current(),
			s => s !== null,
			'the first answer',
		);
		expect(first).toMatchObject({status: 'ok', version: '2.28.9', errors: [], warnings: [], changes: []});
		expect(
			first?.status === 'ok' && first.groups.map(g => [g.group, g.comms, g.ranksInGroup, g.status, g.errors]),
		).toEqual([[0, 1, 1, 'RUNNING', 'OK']]);
		// The same answer 15 s on: asked again, nothing new to tell.
		await clock.advance(15_000);
		expect(server.connections()).toBe(2);
		expect(states).toHaveLength(1);
		// A communicator aborts: the next answer, 15 s on, says what changed.
		server.answer(ERROR);
		await clock.advance(15_000);
		expect(server.connections()).toBe(3);
		const changed = p.current();
		expect(changed?.status).toBe('ok');
		if (changed?.status !== 'ok') return;
		expect(changed.groups[0]).toMatchObject({status: 'ABORT', errors: 'INCOMPLETE,ERROR,MISMATCH'});
		expect(changed.changes).toContain('group 0: RUNNING → ABORT');
		expect(changed.changes).toContain('new error: #0-0 (9f3c2a1b5d7e6f80) ERROR — Asynchronous error on 1 rank');
		expect(states).toHaveLength(2);
		// Every exchange closed its connection.
		await until(
			() => server.open(),
			n => n === 0,
			'no connection left open',
		);
	});

	it('with nothing listening, makes one connection attempt a minute: 3 over 3 simulated minutes, no retry', async () => {
		const gone = await fake();
		await gone.close();
		const clock = testClock();
		const {exchange, calls} = counted(clock);
		const {poller: p} = poller(gone.address, clock, exchange);
		const start = clock.now();
		p.start();
		const absent = await until(
			() => p.current(),
			s => s !== null,
			'the first attempt',
		);
		expect(absent).toEqual({
			status: 'absent',
			readAt: start,
			reason: `nothing listens at ${gone.address} (connection refused)`,
		});
		// A refused port costs no retry: nothing more until the minute is up.
		await clock.advance(MINUTE - 1);
		expect(calls).toEqual([start]);
		await clock.advance(2 * MINUTE);
		expect(calls).toEqual([start, start + MINUTE, start + 2 * MINUTE]);
	});

	it('asks a port that accepts but never answers once a minute too', async () => {
		const server = await fake();
		server.silence(true);
		const clock = testClock();
		const {poller: p} = poller(server.address, clock);
		p.start();
		await clock.advance(3 * MINUTE - 1);
		expect(server.connections()).toBe(3);
		expect(p.current()).toMatchObject({
			status: 'absent',
			reason: `${server.address}: no handshake answer within 1000 ms`,
		});
		await until(
			() => server.open(),
			n => n === 0,
			'no connection left open',
		);
	});

	it('falls back to once a minute when the service goes, and back to every 15 s when it returns', async () => {
		const server = await fake();
		const clock = testClock();
		const {exchange, calls} = counted(clock);
		const {poller: p} = poller(server.address, clock, exchange);
		p.start();
		await until(
			() => p.current()?.status,
			s => s === 'ok',
			'the first answer',
		);
		await server.close();
		await clock.advance(15_000);
		expect(p.current()?.status).toBe('absent');
		await clock.advance(MINUTE - 1);
		expect(calls).toHaveLength(2);
		// The service back on its port: found at the minute, then asked every 15 s again.
		const back = await startFakeRasServer(OK, OK, Number(server.address.split(':')[1]));
		servers.push(back);
		await clock.advance(1);
		expect(calls).toHaveLength(3);
		expect(p.current()?.status).toBe('ok');
		await clock.advance(15_000);
		expect(calls).toHaveLength(4);
		expect(back.connections()).toBe(2);
		const at = calls[0]!;
		expect(calls).toEqual([at, at + 15_000, at + 15_000 + MINUTE, at + 30_000 + MINUTE]);
	});

	it('polls no faster than absentEveryMs in real time either (a fast interval, timestamps checked)', async () => {
		const gone = await fake();
		await gone.close();
		const times: number[] = [];
		const p = new NcclRasPoller({
			address: gone.address,
			absentEveryMs: 100,
			exchange: (address, command, signal) => {
				times.push(performance.now());
				return exchangeNcclRas(address, command, {signal});
			},
		});
		pollers.push(p);
		p.start();
		await until(
			() => times.length,
			n => n >= 5,
			'five attempts',
		);
		p.stop();
		const gaps = times.slice(1).map((t, i) => t - times[i]!);
		for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(99);
	});

	it('stop() cancels the next ask and ends the exchange in flight, leaving no socket open', async () => {
		const server = await fake();
		server.silence(true);
		const clock = testClock();
		const {poller: p} = poller(server.address, clock);
		p.start();
		await until(
			() => server.open(),
			n => n === 1,
			'the exchange connected',
		);
		p.stop();
		await until(
			() => server.open(),
			n => n === 0,
			'its connection closed',
		);
		expect(clock.pending()).toBe(0);
		expect(p.current()).toBeNull();
		// Started again: one ask, then stopped while it waits for its next turn.
		server.silence(false);
		p.start();
		await until(
			() => clock.pending(),
			n => n === 1,
			'the next ask scheduled',
		);
		expect(p.current()?.status).toBe('ok');
		p.stop();
		expect(clock.pending()).toBe(0);
		expect(server.connections()).toBe(2);
	});

	it('a listener may stop the poller: nothing is asked after', async () => {
		const server = await fake();
		const clock = testClock();
		const {poller: p} = poller(server.address, clock);
		p.onChange(() => p.stop());
		p.start();
		await until(
			() => p.current(),
			s => s !== null,
			'the first answer',
		);
		expect(clock.pending()).toBe(0);
		expect(server.connections()).toBe(1);
	});

	it('takes a failing exchange as absence, never a throw', async () => {
		const clock = testClock();
		const {poller: p} = poller('127.0.0.1:1', clock, () => Promise.reject(new Error('boom')));
		p.start();
		expect(
			await until(
				() => p.current(),
				s => s !== null,
				'a state',
			),
		).toMatchObject({
			status: 'absent',
			reason: 'Error: boom',
		});
	});
});
