import {describe, expect, it} from 'vitest';
import type {ExitStatus, JobEvent, RankProcess} from '../../src/core/types.js';
import {type ExitReport, watchNodeExits} from '../../src/fleet/node-exit-watch.js';
import {exitState, JOB_END_SCANS} from '../../src/fleet/node-exits.js';
import {job, jobSet, NOW, rank} from '../ui/fixtures.js';
import {FakeFleet} from '../ui/fleet/fleet-fixtures.js';

// The exit watch on a fleet driven by the test (real NodeStates fed wire snapshots, as the agents send them): started
// before the send, narrowed to the ranks it reached, settled when every node's ranks exited or its node was lost,
// or at the timeout with what it saw.

const JOB = 'slurm:998.0';
const ranksOf = (node: string, numbers: number[]): RankProcess[] =>
	numbers.map(n => ({...rank(n, {pid: 600 + n, startTime: 50 + n, host: node}), job: JOB}));
const n1 = ranksOf('node1', [0, 1]);
const n2 = ranksOf('node2', [2, 3]);
const REQUEUE: ExitStatus = {code: 99, signal: null};
const ended: JobEvent = {
	time: NOW,
	kind: 'job-ended',
	job: JOB,
	rank: null,
	pid: null,
	level: 'warn',
	text: '',
	exit: REQUEUE,
};

function fleetWithJob(): FakeFleet {
	return new FakeFleet(['node1', 'node2'])
		.hello('node1')
		.hello('node2')
		.send('node1', {ranks: jobSet([job(JOB, n1)])})
		.send('node2', {ranks: jobSet([job(JOB, n2)])});
}

const sends = [
	{node: 'node1', job: JOB, ranks: n1},
	{node: 'node2', job: JOB, ranks: n2},
];
const reachedAll = [...n1, ...n2].map(r => ({node: r.host, pid: r.pid}));

describe('watchNodeExits', () => {
	it('a node whose ranks exited before settle() was called is not missed; settles when the other is lost', async () => {
		const fleet = fleetWithJob();
		const watch = watchNodeExits(fleet, sends, Date.now(), 60_000);
		// node1's ranks go (and its job ends) while the other node's agent has not replied yet.
		fleet.send('node1', {ranks: jobSet([]), events: [ended]});
		const heard: ExitReport[] = [];
		const settled = watch.settle(reachedAll, report => heard.push(report));
		expect(heard.at(-1)?.nodes.map(exitState)).toEqual(['exited', 'running']);
		fleet.lose('node2', 'agent killed by SIGKILL');
		const report = await settled;
		expect(report.timedOut).toBe(false);
		expect(report.nodes.map(exitState)).toEqual(['exited', 'lost']);
		expect(report.nodes[1]!.lost).toBe('lost: agent killed by SIGKILL; reconnecting');
	});

	it('the timeout: resolves with what it saw, ranks still listed said as running', async () => {
		const fleet = fleetWithJob();
		const watch = watchNodeExits(fleet, sends, Date.now(), 300);
		const report = await watch.settle(reachedAll);
		expect(report.timedOut).toBe(true);
		expect(report.nodes.map(exitState)).toEqual(['running', 'running']);
		// Stopped with it: a snapshot after changes nothing it returned.
		fleet.send('node1', {ranks: jobSet([]), events: [ended]});
		expect(report.nodes.map(exitState)).toEqual(['running', 'running']);
	});

	it('only the ranks reached are waited for: a node none of whose ranks got the signal is not', async () => {
		const fleet = fleetWithJob();
		const watch = watchNodeExits(fleet, sends, Date.now(), 60_000);
		const settled = watch.settle([{node: 'node2', pid: n2[0]!.pid}]);
		// Rank 2 gone; rank 3 (refused) runs on, so the job does not end there: settled after a few more rank scans.
		for (let i = 0; i <= JOB_END_SCANS; i++)
			fleet.send('node2', {ranks: jobSet([job(JOB, [n2[1]!])], {sampledAt: NOW + 1 + i})});
		const report = await settled;
		expect(report.nodes.map(one => [one.node, one.ranks.map(r => r.rank), exitState(one)])).toEqual([
			['node2', [2], 'exited'],
		]);
	});
});
