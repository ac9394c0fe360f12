import {describe, expect, it} from 'vitest';
import {fleetAlerts} from '../../../src/ui/fleet/fleet-alerts.js';
import {fleetRankSet} from '../../../src/ui/fleet/fleet-ranks.js';
import {alert, endedJob, job, jobSet, NOW, rank} from '../fixtures.js';
import {FakeFleet} from './fleet-fixtures.js';

// Every node's ranks as one set (a job spanning nodes one job, each rank with its node's name) and every node's
// alerts and events with its name, merged by time.

const SLURM = {scheduler: 'slurm', jobId: '998', stepId: '0', restartCount: 0, taskId: null};

describe('fleetRankSet', () => {
	it("a SLURM job on two nodes is one job of both nodes' ranks, by rank; a launcher's job stays its node's", () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const spanning = (ranks: number[]) =>
			job(
				'slurm:998.0',
				ranks.map(n => rank(n, {worldSize: 4, pid: 500 + (n % 2), host: 'compute-a'})),
				{identity: 'scheduler', localWorldSize: 2, task: SLURM},
			);
		const local = job('torchrun:4242', [rank(0, {pid: 700})], {identity: 'launcher'});
		// node2 reports first in its own set, with ranks 2 and 3; both nodes' rank pids collide (500, 501).
		fleet.send('node1', {ranks: jobSet([spanning([0, 1]), local])});
		fleet.send('node2', {ranks: jobSet([spanning([3, 2])])});
		const set = fleetRankSet(fleet.current().nodes)!;
		expect(set.jobs.map(j => j.id)).toEqual(['slurm:998.0', 'node1/torchrun:4242']);
		const slurm = set.jobs[0]!;
		expect(slurm.ranks.map(r => [r.rank, r.host, r.pid, r.job])).toEqual([
			[0, 'node1', 500, 'slurm:998.0'],
			[1, 'node1', 501, 'slurm:998.0'],
			[2, 'node2', 500, 'slurm:998.0'],
			[3, 'node2', 501, 'slurm:998.0'],
		]);
		expect(slurm).toMatchObject({worldSize: 4, localWorldSize: 4, launcher: null, allLocalRanksPresent: true});
		expect(set.jobs[1]!.ranks.map(r => r.host)).toEqual(['node1']);
		expect(set.ranks).toHaveLength(5);
	});

	it('a rendezvous address is one job across nodes too; the same launcher pid on two nodes is two jobs', () => {
		const fleet = new FakeFleet(['a', 'b']).hello('a').hello('b');
		const on = (n: number) =>
			jobSet([
				job('rdzv:10.0.0.1:29500', [rank(n)], {identity: 'rendezvous'}),
				job('torchrun:77', [rank(0)], {identity: 'launcher'}),
			]);
		fleet.send('a', {ranks: on(0)}).send('b', {ranks: on(1)});
		const ids = fleetRankSet(fleet.current().nodes)!.jobs.map(j => j.id);
		expect(ids).toEqual(['rdzv:10.0.0.1:29500', 'a/torchrun:77', 'b/torchrun:77']);
	});

	it("null before any node's scan; ended jobs named as the running ones, a spanning job's end said once", () => {
		const fleet = new FakeFleet(['a', 'b']).hello('a').hello('b');
		expect(fleetRankSet(fleet.current().nodes)).toBeNull();
		fleet.send('a', {ranks: jobSet([], {ended: [endedJob('slurm:5.0', 60), endedJob('pid:42', 30)]})});
		fleet.send('b', {ranks: jobSet([], {ended: [endedJob('slurm:5.0', 50)]})});
		const set = fleetRankSet(fleet.current().nodes)!;
		expect(set.jobs).toEqual([]);
		expect(set.ended.map(e => [e.id, e.endedAt])).toEqual([
			['slurm:5.0', NOW - 50_000],
			['a/pid:42', NOW - 30_000],
		]);
	});
});

describe('fleetAlerts', () => {
	it("each node's level changes and events named after it, merged oldest first", () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const event = {time: NOW - 90_000, kind: 'rank-stopped', job: 'x', rank: 1, pid: 9, level: 'warn'} as const;
		fleet.send('node1', {newAlerts: [alert(3, 'gpu0', 'ok', 'critical', 91)]});
		fleet.send('node2', {
			newAlerts: [alert(2, 'ram', 'ok', 'warn', 86)],
			events: [{...event, text: 'rank 1 (pid 9) stopped'}],
		});
		fleet.send('node1', {newAlerts: [alert(1, 'gpu0', 'critical', 'ok', 40)]});
		const {alerts, events} = fleetAlerts(fleet.current().nodes);
		expect(alerts.map(a => [a.metric, a.to])).toEqual([
			['node1 gpu0', 'critical'],
			['node2 ram', 'warn'],
			['node1 gpu0', 'ok'],
		]);
		expect(events.map(e => e.text)).toEqual(['node2 rank 1 (pid 9) stopped']);
	});

	it("a node's saves are not alerts: 60 of them after a rank stop leave the stop, and no save, on the pane", () => {
		const fleet = new FakeFleet(['node1']).hello('node1');
		const stop = {time: NOW - 90_000, kind: 'rank-stopped', job: 'x', rank: 1, pid: 9, level: 'warn'} as const;
		fleet.send('node1', {events: [{...stop, text: 'rank 1 (pid 9) stopped'}]});
		const saves = Array.from({length: 60}, (_, i) => ({
			...stop,
			time: NOW - 60_000 + i,
			kind: 'save-seen' as const,
			level: 'ok' as const,
			text: `saved checkpoint_step_${i}`,
		}));
		fleet.send('node1', {events: saves});
		const {events} = fleetAlerts(fleet.current().nodes);
		expect(events.map(e => e.text)).toEqual(['node1 rank 1 (pid 9) stopped']);
		// The node keeps its newest saves apart (the stop is not pushed out of its own bounded list).
		const kept = fleet.current().nodes[0]!.snapshot!.recentEvents;
		expect(kept.filter(e => e.kind === 'save-seen')).toHaveLength(50);
		expect(kept[0]!.kind).toBe('rank-stopped');
	});
});
