import {describe, expect, it} from 'vitest';
import type {Snapshot} from '../../../src/core/types.js';
import {confirmText} from '../../../src/ui/confirm-text.js';
import {type FleetTarget, pickFleetJob} from '../../../src/ui/fleet/fleet-job-target.js';
import {NODES_INITIAL as FLEET_INITIAL, type NodesKeyContext, reduce, type UiState} from '../../../src/ui/state.js';
import {checkpointIndex} from '../../helpers/checkpoint-data.js';
import {job, jobSet, rank} from '../fixtures.js';
import {FakeFleet} from './fleet-fixtures.js';

// s and e on the list of nodes, without a screen: which job (the cursor node's, on every node holding its ranks),
// the confirm box's words node by node, the refusal when a node of the job is not connected, and the reducer's
// way from s to the send and its result box.

const SLURM = {scheduler: 'slurm', jobId: '998', stepId: '0', restartCount: 0, taskId: null};

/** Rank `n` of SLURM job 998.0 (world 4); rank 3 has no SIGUSR1 handler. */
function slurmRank(n: number) {
	const plain = rank(n, {worldSize: 4, pid: 600 + n});
	return n === 3 ? {...plain, signals: {...plain.signals, SIGUSR1: plain.signals.SIGUSR2!}} : plain;
}

const slurmRanks = (ranks: number[]): Partial<Snapshot> => ({
	ranks: jobSet([job('slurm:998.0', ranks.map(slurmRank), {identity: 'scheduler', localWorldSize: 2, task: SLURM})]),
});

/** node1 (ranks 0, 1; its agent watches /runs/exp1) and node2 (ranks 2, 3) of one SLURM job, both connected. */
function twoNodes(): FakeFleet {
	return new FakeFleet(['node1', 'node2'])
		.hello('node1')
		.hello('node2')
		.send('node1', {...slurmRanks([0, 1]), checkpoints: checkpointIndex()})
		.send('node2', slurmRanks([2, 3]));
}

function targetOf(fleet: FakeFleet, node: string): FleetTarget {
	const picked = pickFleetJob(fleet.current().nodes, node);
	if (!('target' in picked)) throw new Error(picked.why);
	return picked.target;
}

describe('the job s and e act on from the nodes', () => {
	it("is the cursor node's job, with its ranks on every node", () => {
		const fleet = twoNodes();
		expect(targetOf(fleet, 'node2')).toEqual({
			job: 'slurm:998.0',
			nodes: [
				{node: 'node1', pids: [600, 601]},
				{node: 'node2', pids: [602, 603]},
			],
		});
	});

	it("a job that cannot span nodes (a launcher's) is its node's own: only that node's ranks", () => {
		const fleet = new FakeFleet(['node1', 'node2'])
			.hello('node1')
			.hello('node2')
			.send('node1', {ranks: jobSet([job('torchrun:4242', [rank(0), rank(1)])])})
			.send('node2', {ranks: jobSet([job('torchrun:4242', [rank(0, {pid: 700}), rank(1, {pid: 701})])])});
		expect(targetOf(fleet, 'node2')).toEqual({job: 'node2/torchrun:4242', nodes: [{node: 'node2', pids: [700, 701]}]});
	});

	it('none on a node with several jobs, no ranks, or no scan yet: the reason, naming the node', () => {
		const fleet = new FakeFleet(['node1', 'node2', 'node3'])
			.hello('node1')
			.hello('node2')
			.hello('node3')
			.send('node1', {
				ranks: jobSet([job('slurm:998.0', [slurmRank(0)], {identity: 'scheduler'}), job('torchrun:77', [rank(5)])]),
			})
			.send('node2', {ranks: jobSet([])});
		const nodes = fleet.current().nodes;
		expect(pickFleetJob(nodes, 'node1')).toEqual({
			why: 'node1 runs 2 jobs (slurm:998.0, node1/torchrun:77): Enter opens it, where the cursor picks one',
		});
		expect(pickFleetJob(nodes, 'node2')).toEqual({why: 'no ranks on node2: nothing to signal'});
		expect(pickFleetJob(nodes, 'node3')).toEqual({why: 'node3 has sent no rank scan yet: nothing to signal'});
	});
});

describe("the confirm box's words", () => {
	it('lists the targets by node, each rank as it takes the signal (NO HANDLER: refused, an agent never forces)', () => {
		const fleet = twoNodes();
		const text = confirmText('save', 'SIGUSR1', targetOf(fleet, 'node1'), {
			nodes: fleet.current().nodes,
			now: fleet.now,
		});
		expect(text.title).toBe('Send SIGUSR1 (save) to job slurm:998.0?');
		expect(text.lines).toEqual([
			'4 ranks on 2 nodes · save watched in /runs/exp1 on node1',
			'1 of 4 ranks will be refused (listed first)',
			"route: agents — each node's agent sends to its own ranks, every guard applied there",
			'node1: ranks 0, 1 (2 of 2 here)',
			'  rank 0  pid 600  handles SIGUSR1',
			'  rank 1  pid 601  handles SIGUSR1',
			'node2: ranks 2, 3 (2 of 2 here)',
			'  rank 3  pid 603  NO HANDLER: SIGUSR1 would terminate it — will be refused (an agent never forces)',
			'  rank 2  pid 602  handles SIGUSR1',
		]);
	});

	it('a node of the job lost: said first, with why nothing is sent; its ranks still listed from its last scan', () => {
		const fleet = twoNodes();
		const target = targetOf(fleet, 'node1');
		fleet.lose('node2', 'agent killed by SIGKILL');
		const {lines} = confirmText('emergency', 'SIGTERM', target, {nodes: fleet.current().nodes, now: fleet.now});
		expect(lines.slice(0, 3)).toEqual([
			'nothing will be sent: node2 lost: agent killed by SIGKILL; reconnecting',
			'every node holding ranks of the job must be connected: a save that reaches',
			'some ranks of a DDP job and not others leaves the others waiting in a collective',
		]);
		expect(lines).toContain('node2: ranks 2, 3 (2 of 2 here) · lost: agent killed by SIGKILL; reconnecting');
		expect(lines).toContain('  rank 3  pid 603  handles SIGTERM');
	});

	it('ranks of the job seen on no node, and a save no agent watches, are said', () => {
		const fleet = new FakeFleet(['node1']).hello('node1').send('node1', slurmRanks([0, 1]));
		const {lines} = confirmText('save', 'SIGUSR1', targetOf(fleet, 'node1'), {
			nodes: fleet.current().nodes,
			now: fleet.now,
		});
		expect(lines.slice(0, 3)).toEqual([
			'2 ranks on 1 node · no agent of the job watches a RUN_DIR: the save will not be watched',
			"route: agents — each node's agent sends to its own ranks, every guard applied there",
			'2 of its 4 ranks are on no node listed here and get nothing',
		]);
	});
});

describe('s, y and the result on the nodes (the one reducer)', () => {
	const context = (fleet: FakeFleet, readonly = false): NodesKeyContext => ({
		nodes: ['node1', 'node2'],
		page: 5,
		helpLines: 20,
		helpRows: 5,
		fleet: fleet.current().nodes,
		readonly,
		signals: {save: 'SIGUSR1', emergency: 'SIGTERM'},
		now: fleet.now,
	});
	const press = (state: UiState, fleet: FakeFleet, input: string, readonly = false) =>
		reduce(state, {type: 'input', input, key: {}, context: context(fleet, readonly)});

	it('s opens the box on the job (Cancel first), y queues the send of that target and opens the result box', () => {
		const fleet = twoNodes();
		const open = press(FLEET_INITIAL, fleet, 's');
		expect(open.mode).toBe('confirm');
		expect(open.confirm).toEqual({action: 'save', choice: 'cancel', target: targetOf(fleet, 'node1')});
		const sent = press(open, fleet, 'y');
		expect(sent.mode).toBe('result');
		expect(sent.effects).toEqual([{kind: 'send', action: 'save', target: targetOf(fleet, 'node1')}]);
		expect(sent.result?.title).toBe("sending SIGUSR1 (save) to job slurm:998.0 through its nodes' agents…");
	});

	it('--readonly: s and e do nothing on the nodes', () => {
		const fleet = twoNodes();
		expect(press(FLEET_INITIAL, fleet, 's', true)).toBe(FLEET_INITIAL);
		expect(press(FLEET_INITIAL, fleet, 'e', true)).toBe(FLEET_INITIAL);
	});

	it('s with no job to act on: a notice, no box', () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1');
		const state = press(FLEET_INITIAL, fleet, 'e');
		expect(state).toMatchObject({view: 'nodes', mode: 'main'});
		expect(state.notice?.text).toBe('node1 has sent no rank scan yet: nothing to signal');
	});

	it('the result box: a line per rank with its node; the save status follows the last send only', () => {
		const fleet = twoNodes();
		let state = press(press(FLEET_INITIAL, fleet, 's'), fleet, 'y');
		state = reduce(state, {
			type: 'sent',
			action: 'save',
			signal: 'SIGUSR1',
			job: 'slurm:998.0',
			sentAt: 5000,
			watch: 'watching',
			results: [
				{node: 'node1', rank: 0, pid: 600, outcome: 'sent', reason: null},
				{node: 'node2', rank: 3, pid: 603, outcome: 'refused', reason: 'SIGUSR1 would terminate it'},
			],
		});
		expect(state.result).toEqual({
			title: 'SIGUSR1 (save) to job slurm:998.0: sent 1, refused 1',
			lines: ['node1 rank 0  pid 600  sent', 'node2 rank 3  pid 603  refused: SIGUSR1 would terminate it'],
		});
		expect(state.saveStatus?.text).toMatch(/^waiting for checkpoint… \(SIGUSR1 to job slurm:998\.0 sent /);
		const finished = {
			signal: 'SIGUSR1',
			checkpoint: 'checkpoint_step_1600',
			attributed: true,
			note: null,
			seconds: 2.5,
			timeoutS: 60,
		} as const;
		expect(reduce(state, {type: 'save-finished', sentAt: 4000, ...finished}).saveStatus).toBe(state.saveStatus);
		expect(reduce(state, {type: 'save-finished', sentAt: 5000, ...finished}).saveStatus).toEqual({
			text: 'saved checkpoint_step_1600 in 2.5 s',
			level: 'ok',
		});
	});
});
