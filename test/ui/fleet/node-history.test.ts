import {describe, expect, it} from 'vitest';
import {FleetHistories} from '../../../src/ui/fleet/node-history.js';
import {alert, NOW, rankSet, status} from '../fixtures.js';
import {FakeFleet} from './fleet-fixtures.js';

// A node's histories, kept from its snapshots as they arrive through the fleet: what its own view's charts,
// markers and rank detail read, bounded.

describe('FleetHistories', () => {
	it("each node's metrics, markers and rank scans, from its snapshots in its own clock", () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const histories = new FleetHistories(fleet);
		const first = rankSet(2);
		fleet.send('node1', {metrics: {ram: status(40, 'ok', 85)}, ranks: first}, NOW);
		// The same scan carried on (not sent again by the agent): one rank sample, not two.
		fleet.send('node1', {metrics: {ram: status(50, 'ok', 85)}, ranks: first}, NOW + 1000);
		const second = rankSet(2, {sampledAt: NOW + 2000}, () => ({rssBytes: 5e9}));
		fleet.send(
			'node1',
			{
				metrics: {ram: status(91, 'critical', 85), swap: {...status(1, 'ok', 50), stale: true}},
				ranks: second,
				newAlerts: [alert(0, 'ram', 'ok', 'critical', 91)],
			},
			NOW + 2000,
		);
		fleet.send('node2', {metrics: {ram: status(10, 'ok', 85)}}, NOW);

		const node1 = histories.of('node1');
		expect(node1.startedAt).toBe(NOW);
		expect(node1.getHistory('ram', 10).map(p => p.value)).toEqual([40, 50, 91]);
		// A stale status is the last reading carried on, not a sample.
		expect(node1.getHistory('swap', 10)).toEqual([]);
		expect(node1.getSeries('ram', NOW, NOW + 2000, 100).map(p => p.time)).toEqual([NOW, NOW + 1000, NOW + 2000]);
		expect(node1.getMarkers(NOW - 1)).toEqual([{time: NOW, kind: 'alert', level: 'critical', metric: 'ram'}]);
		expect(node1.getRankHistory(10_000, 1000).map(s => s.rssBytes)).toEqual([first.ranks[0]!.rssBytes, 5e9]);
		expect(node1.getSnapshot()?.time).toBe(NOW + 2000);
		expect(
			histories
				.of('node2')
				.getHistory('ram', 10)
				.map(p => p.value),
		).toEqual([10]);
		histories.close();
		fleet.send('node2', {metrics: {ram: status(20, 'ok', 85)}}, NOW + 1000);
		expect(histories.of('node2').getHistory('ram', 10)).toHaveLength(1);
	});

	it('bounded: the samples kept as they came stop at 300 a metric (5 minutes at 1 s)', () => {
		const fleet = new FakeFleet(['node1']).hello('node1');
		const histories = new FleetHistories(fleet);
		for (let i = 0; i < 400; i++) fleet.send('node1', {metrics: {ram: status(i % 100, 'ok', 85)}}, NOW + i * 1000);
		const kept = histories.of('node1').getHistory('ram', 1000);
		expect(kept).toHaveLength(300);
		expect(kept[0]!.time).toBe(NOW + 100_000);
	});
});
