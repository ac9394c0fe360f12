import {describe, expect, test} from 'vitest';
import type {Readiness, ReadinessVerdict} from '../../src/core/readiness-types.js';
import type {Job, Snapshot} from '../../src/core/types.js';
import type {NodeView} from '../../src/fleet/node-state.js';
import {fleetReadiness} from '../../src/ui/fleet/fleet-readiness.js';
import {job, rankSet} from '../core/job-data.js';
import {NOW} from '../helpers/checkpoint-data.js';
import {connectedNode} from './fleet/fleet-fixtures.js';

// Every node's readiness as the merged fleet names its jobs: a job that spans nodes (a scheduler's job, a rendezvous)
// is one job whose worst node decides; a job only unique on its node (a launcher's pid) stays one per node.

function verdict(jobId: string, v: ReadinessVerdict, leadS = 30): Readiness {
	return {
		job: jobId,
		verdict: v,
		signal: 'SIGTERM',
		reasons: [],
		saveS: null,
		leadS,
		leadFrom: 'grace',
		lastSaveAt: null,
		maxWorkAtRiskS: null,
	};
}

function node(name: string, jobs: readonly Job[], readiness: readonly Readiness[] | undefined): NodeView {
	const fields: Partial<Snapshot> = {ranks: rankSet(jobs), ...(readiness === undefined ? {} : {readiness})};
	return connectedNode(name, NOW, fields);
}

const spanning = (id: string, identity: Job['identity']): Job => ({...job(id, 2), identity});

describe('fleetReadiness', () => {
	test.each([
		['scheduler', 'fake:42.0'],
		['rendezvous', 'rdzv:10.0.0.1:29500'],
	] as const)('a job spanning two nodes (%s) gets the worst node’s verdict, under its own id', (identity, id) => {
		const j = spanning(id, identity);
		const nodes = [node('node1', [j], [verdict(id, 'ready', 120)]), node('node2', [j], [verdict(id, 'not-ready', 20)])];
		expect(fleetReadiness(nodes)).toEqual([verdict(id, 'not-ready', 20)]);
		// The order of the nodes does not matter.
		expect(fleetReadiness([...nodes].reverse())).toEqual([verdict(id, 'not-ready', 20)]);
	});

	test('at-risk is worse than unknown, unknown worse than ready', () => {
		const id = 'fake:42.0';
		const j = spanning(id, 'scheduler');
		const of = (...vs: ReadinessVerdict[]) =>
			fleetReadiness(vs.map((v, i) => node(`node${i + 1}`, [j], [verdict(id, v)])))[0]?.verdict;
		expect(of('ready', 'unknown', 'at-risk')).toBe('at-risk');
		expect(of('unknown', 'ready')).toBe('unknown');
		expect(of('ready', 'ready')).toBe('ready');
	});

	test('a job qualified per node (elastic) keeps one entry per node, with the node/ id', () => {
		const id = 'torchrun:4200';
		const j = job(id, 2);
		expect(j.identity).toBe('elastic');
		const got = fleetReadiness([
			node('node1', [j], [verdict(id, 'ready')]),
			node('node2', [j], [verdict(id, 'not-ready')]),
		]);
		expect(got).toEqual([
			{...verdict(id, 'ready'), job: 'node1/torchrun:4200'},
			{...verdict(id, 'not-ready'), job: 'node2/torchrun:4200'},
		]);
	});

	test('a node without readiness (an older agent, or none yet) contributes nothing', () => {
		const id = 'fake:42.0';
		const j = spanning(id, 'scheduler');
		const got = fleetReadiness([node('node1', [j], undefined), node('node2', [j], [verdict(id, 'at-risk')])]);
		expect(got).toEqual([verdict(id, 'at-risk')]);
		expect(fleetReadiness([node('node1', [j], undefined), node('node2', [j], [])])).toEqual([]);
		expect(fleetReadiness([{...node('node1', [j], undefined), snapshot: null}])).toEqual([]);
	});

	test('a verdict for a job the node’s ranks do not list is left out (no id to merge it under)', () => {
		const j = job('torchrun:4200', 2);
		expect(fleetReadiness([node('node1', [j], [verdict('torchrun:9999', 'not-ready')])])).toEqual([]);
	});
});
