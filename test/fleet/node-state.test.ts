import {describe, expect, it} from 'vitest';
import {type HelloMessage, PROTOCOL, type SnapshotMessage} from '../../src/agent/protocol.js';
import {wireSnapshot} from '../../src/agent/wire-snapshot.js';
import type {Snapshot} from '../../src/core/types.js';
import {NodeState} from '../../src/fleet/node-state.js';
import {linkWords} from '../../src/fleet/node-words.js';

// One node as the viewer knows it: judged against a clock (silence makes it stale), its snapshot rebuilt from
// what the agent sends (slow parts carried over), its own recent events kept.

const T0 = Date.UTC(2026, 10, 24, 12, 0, 0);
const hello: HelloMessage = {
	kind: 'hello',
	protocol: PROTOCOL,
	host: 'gpu1',
	version: '0.1.0',
	pid: 4242,
	clock: T0,
	interval_ms: 1000,
	run_dir: null,
};

function snapshot(time: number, fields: Partial<Snapshot> = {}): Snapshot {
	return {
		time,
		host: 'gpu1',
		tick: 1,
		memory: null,
		memoryError: null,
		gpu: {status: 'starting'},
		gpuProcesses: {processes: [], sampledAt: null, error: null},
		ranks: null,
		ranksError: null,
		checkpoints: null,
		metrics: {},
		newAlerts: [],
		recentAlerts: [],
		events: [],
		recentEvents: [],
		...fields,
	} as Snapshot;
}

const message = (snap: Snapshot, previous: Snapshot | null): SnapshotMessage => ({
	kind: 'snapshot',
	host: 'gpu1',
	snapshot: wireSnapshot(snap, previous),
});

describe('NodeState', () => {
	it('connecting until its hello, connected while it speaks, stale after 3 silent intervals, lost when it ends', () => {
		const node = new NodeState('gpu1', 1000);
		node.connecting();
		expect(node.state(T0)).toBe('connecting');
		node.hello(hello, T0);
		expect(node.state(T0 + 3000)).toBe('connected');
		expect(node.state(T0 + 3001)).toBe('stale');
		expect(linkWords(node.view(T0 + 7000), T0 + 7000)).toBe('stale: no message for 7 s (over 3 intervals)');
		node.lost('agent exited 255: ssh: connect to host gpu1 port 22: Connection refused');
		expect(linkWords(node.view(T0 + 8000), T0 + 8000)).toBe(
			'lost: agent exited 255: ssh: connect to host gpu1 port 22: Connection refused; reconnecting',
		);
		node.connecting();
		expect(node.view(T0 + 9000)).toMatchObject({state: 'connecting', reconnects: 1});
	});

	it('rebuilds each snapshot: slow parts carried over while unchanged, recent events its own, the clock skew', () => {
		const node = new NodeState('gpu1', 1000);
		node.connecting();
		node.hello(hello, T0);
		const ranks = {ranks: [], jobs: [], launcher: null, departed: [], ended: [], runDirMatch: null, sampledAt: T0};
		const event = {
			time: T0,
			kind: 'save-seen',
			job: null,
			rank: null,
			pid: null,
			level: 'ok',
			text: 'saved x',
		} as const;
		const first = snapshot(T0, {ranks, events: [event]});
		expect(node.snapshot(message(first, null), T0).ranks).toEqual(ranks);
		// The next tick: the same ranks object (unchanged), so not sent; still there on this side.
		const second = snapshot(T0 + 1000, {ranks});
		const wire = message(second, first);
		expect('ranks' in wire.snapshot).toBe(false);
		const rebuilt = node.snapshot(wire, T0 + 1000);
		expect(rebuilt.ranks).toEqual(ranks);
		expect(rebuilt.recentEvents).toEqual([event]);
		// The node's clock 5 s ahead: noted.
		node.snapshot(message(snapshot(T0 + 7000, {ranks}), second), T0 + 2000);
		expect(node.view(T0 + 2000).skewMs).toBe(5000);
		expect(linkWords(node.view(T0 + 2000), T0 + 2000)).toBe(
			'connected (traintop 0.1.0, agent pid 4242); its clock is 5 s ahead of this one',
		);
	});
});
