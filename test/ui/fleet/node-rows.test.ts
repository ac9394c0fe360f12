import {describe, expect, it} from 'vitest';
import type {HostMemory} from '../../../src/core/types.js';
import {nodeRow, orderRows} from '../../../src/ui/fleet/node-rows.js';
import {gpu, hostMemory} from '../../helpers/snapshots.js';
import {GIB, job, jobSet, NOW, rank, rankSet, status} from '../fixtures.js';
import {FakeFleet} from './fleet-fixtures.js';

// A node's row from what the fleet knows of it: its link (judged against the clock), its latest snapshot's memory,
// GPUs and ranks as its own Monitor judged them.

const limited: HostMemory = {
	...hostMemory(30),
	cgroup: {scope: 'job', version: 2, path: '/slurm/job_1', limitBytes: 16 * GIB, usedBytes: 14.72 * GIB, percent: 92},
};

describe('nodeRow', () => {
	it('a connected node: RAM and swap, GPU memory max and mean, ranks present over declared, the worst level', () => {
		const fleet = new FakeFleet(['node1']).hello('node1');
		const ranks = jobSet([job('torchrun:1', [rank(0), rank(1)], {localWorldSize: 2})]);
		fleet.send('node1', {
			memory: hostMemory(62.5, 10),
			gpu: {status: 'ok', gpus: [gpu(0, 91.2), gpu(1, 40), gpu(2, 50), gpu(3, 60)], sampledAt: NOW, warning: null},
			metrics: {
				ram: status(62.5, 'ok', 85),
				swap: status(10, 'ok', 50),
				gpu0: status(91.2, 'critical', 90),
				gpu1: status(40, 'ok', 90),
			},
			ranks,
		});
		const row = nodeRow(fleet.view('node1'), NOW);
		expect(row).toMatchObject({
			name: 'node1',
			state: 'connected',
			link: 'connected',
			ram: {text: '62.5%', level: 'ok'},
			ramLimit: false,
			swap: {text: '10.0%', level: 'ok'},
			gpuMax: {text: '91.2%', level: 'critical'},
			gpuMean: {text: '60.3%', level: 'ok'},
			ranks: {text: '2/2', level: 'ok'},
			level: 'critical',
			note: '',
		});
	});

	it('RAM against the job cgroup limit when the node has one, marked; no swap and no GPU said so', () => {
		const fleet = new FakeFleet(['node1']).hello('node1');
		fleet.send('node1', {memory: {...limited, swap: null}, metrics: {ram: status(92, 'critical', 85)}});
		const row = nodeRow(fleet.view('node1'), NOW);
		expect(row.ram).toEqual({text: '92.0%*', level: 'critical'});
		expect(row.ramLimit).toBe(true);
		expect(row.swap.text).toBe('none');
		expect(row.gpuMax.text).toBe('-');
		expect(row.gpuMean.text).toBe('-');
	});

	it('stale after 3 silent intervals (WARN), lost when its connection ends (CRIT), each with its age and why', () => {
		const fleet = new FakeFleet(['node1', 'node2'], 1000).hello('node1').hello('node2');
		fleet.send('node1', {memory: hostMemory(20)}).send('node2', {memory: hostMemory(20)});
		fleet.at(NOW + 7000);
		const stale = nodeRow(fleet.view('node1'), fleet.now);
		expect(stale).toMatchObject({state: 'stale', link: 'stale 7 s', linkLevel: 'warn', level: 'warn'});
		// Its last numbers stay (the pane dims them).
		expect(stale.ram.text).toBe('20.0%');
		fleet.lose('node2', 'agent killed by SIGKILL').at(NOW + 12_000);
		const lost = nodeRow(fleet.view('node2'), fleet.now);
		expect(lost).toMatchObject({state: 'lost', link: 'lost 12 s', level: 'critical'});
		expect(lost.note).toBe('agent killed by SIGKILL');
	});

	it("a node's clock off ours is noted; lines that were not messages and reconnects too", () => {
		const fleet = new FakeFleet(['node1']).hello('node1');
		fleet.garbage('node1', 'Welcome to node1');
		// Its clock is 5 s ahead: its snapshot says NOW + 5 s when ours says NOW.
		fleet.send('node1', {memory: hostMemory(20)}, NOW + 5000);
		expect(nodeRow(fleet.view('node1'), NOW).note).toBe('clock +5 s · 1 line not messages');
		fleet.send('node1', {memory: hostMemory(20)}, NOW - 90_000);
		expect(nodeRow(fleet.view('node1'), NOW).note).toBe('clock -2 min · 1 line not messages');
	});

	it('missing and stuck ranks are a warning; ranks without a declared count are counted only', () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const missing = jobSet([job('slurm:9.0', [rank(0)], {localWorldSize: 4, allLocalRanksPresent: false})]);
		fleet.send('node1', {ranks: missing});
		expect(nodeRow(fleet.view('node1'), NOW)).toMatchObject({ranks: {text: '1/4', level: 'warn'}, level: 'warn'});
		const stuck = rankSet(3, {}, n => (n === 2 ? {stalled: true} : {}));
		fleet.send('node2', {ranks: stuck});
		expect(nodeRow(fleet.view('node2'), NOW)).toMatchObject({ranks: {text: '3'}, level: 'warn', note: '1 stalled'});
	});

	it('before its first snapshot: dashes; connecting, then reconnecting after a loss', () => {
		const fleet = new FakeFleet(['node1']);
		expect(nodeRow(fleet.view('node1'), NOW)).toMatchObject({link: 'connecting', ram: {text: '-'}, level: 'ok'});
		fleet
			.hello('node1')
			.send('node1', {memory: hostMemory(20)})
			.lose('node1', 'agent exited 1')
			.reconnect('node1');
		// Its last numbers are shown until the new agent's first snapshot: a warning, not yet a loss.
		expect(nodeRow(fleet.view('node1'), NOW)).toMatchObject({
			link: 'reconnecting',
			ram: {text: '20.0%'},
			level: 'warn',
			note: 'agent exited 1 · 1 reconnect',
		});
	});
});

describe('orderRows', () => {
	it('as given, or the worst first (lost before CRIT before WARN before ok), ties in the given order', () => {
		const fleet = new FakeFleet(['a', 'b', 'c', 'd', 'e']);
		for (const name of ['a', 'b', 'c', 'd', 'e']) fleet.hello(name);
		fleet.send('b', {metrics: {ram: status(88, 'warn', 90)}});
		fleet.send('c', {metrics: {gpu0: status(95, 'critical', 90)}});
		fleet.lose('d', 'agent exited 255');
		fleet.send('e', {metrics: {ram: status(88, 'warn', 90)}});
		const rows = fleet.current().nodes.map(node => nodeRow(node, NOW));
		expect(orderRows(rows, 'given').map(row => row.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
		expect(orderRows(rows, 'worst').map(row => row.name)).toEqual(['d', 'c', 'b', 'e', 'a']);
	});
});
