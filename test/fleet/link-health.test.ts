import {describe, expect, it} from 'vitest';
import {type HelloMessage, PROTOCOL} from '../../src/agent/protocol.js';
import {LinkEvents} from '../../src/fleet/link-events.js';
import {linkEndWhy} from '../../src/fleet/link-health.js';
import {NodeState} from '../../src/fleet/node-state.js';

// When a link is ended and made again (no hello in time, every node of it silent), and which link changes are news.

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const limits = {hungAfterMs: 15_000, helloTimeoutMs: 30_000};
const hello = (host: string): HelloMessage => ({
	kind: 'hello',
	protocol: PROTOCOL,
	host,
	version: '0.1.0',
	pid: 4242,
	clock: T0,
	interval_ms: 1000,
	run_dir: null,
});

function node(name: string, helloAt: number | null): NodeState {
	const state = new NodeState(name, 1000, null);
	state.connecting();
	if (helloAt !== null) state.hello(hello(name), helloAt);
	return state;
}

describe('linkEndWhy', () => {
	it('ends a connection that gave no hello in time, not before', () => {
		const waiting = [node('gpu1', null)];
		expect(linkEndWhy(waiting, T0, T0 + 29_000, limits)).toBeNull();
		expect(linkEndWhy(waiting, T0, T0 + 31_000, limits)).toBe('gave no hello in 30 s');
	});

	it('ends a connection only when every node on it is silent', () => {
		const quiet = node('gpu1', T0);
		const talking = node('gpu2', T0);
		expect(linkEndWhy([quiet], T0, T0 + 10_000, limits)).toBeNull();
		talking.heard(T0 + 14_000);
		expect(linkEndWhy([quiet, talking], T0, T0 + 20_000, limits)).toBeNull();
		expect(linkEndWhy([quiet], T0, T0 + 20_000, limits)).toBe('silent for 15 s (hung): ended');
	});
});

describe('LinkEvents', () => {
	it('a first connection is not news; going stale and coming back are, once each', () => {
		const gpu1 = node('gpu1', T0);
		const links = new LinkEvents();
		expect(links.changed([gpu1], T0)).toBe(true);
		expect(links.events).toEqual([]);
		expect(links.changed([gpu1], T0 + 500)).toBe(false);
		expect(links.changed([gpu1], T0 + 10_000)).toBe(true);
		expect(links.events.map(e => [e.level, e.text])).toEqual([['warn', expect.stringMatching(/^node gpu1 stale/)]]);
		gpu1.heard(T0 + 11_000);
		expect(links.changed([gpu1], T0 + 11_000)).toBe(true);
		expect(links.events.map(e => e.level)).toEqual(['warn', 'ok']);
	});
});
