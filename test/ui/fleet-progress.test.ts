import {describe, expect, test} from 'vitest';
import type {JobProgress} from '../../src/core/progress-types.js';
import type {Job, Snapshot} from '../../src/core/types.js';
import type {NodeView} from '../../src/fleet/node-state.js';
import {fleetProgress} from '../../src/ui/fleet/fleet-progress.js';
import {job, rankSet} from '../core/job-data.js';
import {NOW} from '../helpers/checkpoint-data.js';
import {hungProgress} from '../helpers/progress-data.js';
import {connectedNode} from './fleet/fleet-fixtures.js';

// Every node's progress as the merged fleet names its jobs: a job spanning nodes is judged on each node for its own
// ranks; the node with the odd rank out says hung, the others stalled (their ranks all wait alike), and the hung
// node's verdict is the job's.

function node(name: string, jobs: readonly Job[], progress: readonly JobProgress[] | undefined): NodeView {
	const fields: Partial<Snapshot> = {ranks: rankSet(jobs), ...(progress === undefined ? {} : {progress})};
	return connectedNode(name, NOW, fields);
}

const id = 'rdzv:10.0.0.1:29500';
const spanning: Job = {...job(id, 2), identity: 'rendezvous'};

describe('fleetProgress', () => {
	test('a job spanning two nodes gets the hung node’s verdict, naming its odd rank', () => {
		const hung = hungProgress(id, {rank: 3, pid: 4204}, {ranks: [2], pids: [4203]}, NOW);
		const stalled: JobProgress = {
			...hung,
			verdict: 'stalled',
			odd: [],
			waiting: [{...hung.waiting[0]!, ranks: [0, 1]}],
		};
		const merged = fleetProgress([node('node1', [spanning], [stalled]), node('node2', [spanning], [hung])]);
		expect(merged).toHaveLength(1);
		expect(merged[0]).toMatchObject({job: id, verdict: 'hung', odd: [{rank: 3, pid: 4204}]});
	});

	test('progressing on every node stays progressing; a node without progress (an older agent) adds nothing', () => {
		const going: JobProgress = {
			...hungProgress(id, {rank: 0, pid: 1}, {ranks: [], pids: []}, NOW),
			verdict: 'progressing',
			odd: [],
			waiting: [],
		};
		const merged = fleetProgress([node('node1', [spanning], [going]), node('node2', [spanning], undefined)]);
		expect(merged.map(p => p.verdict)).toEqual(['progressing']);
	});
});
