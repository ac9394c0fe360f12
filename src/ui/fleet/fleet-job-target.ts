import type {Job} from '../../core/types.js';
import type {NodeView} from '../../fleet/node-state.js';
import {linkWords} from '../../fleet/node-words.js';
import {fleetJobId} from './fleet-ranks.js';

// Which job s and e act on from the list of nodes, and on which nodes it runs: the one job of the node under the
// cursor, across every node that holds ranks of it (a scheduler's step or a rendezvous spans nodes; another job is its
// node's own). Pure.

/** Why a job is sent to on all of its nodes or on none: lines short enough for a box on 80 columns. */
export const WHOLE_JOB_WHY: readonly string[] = [
	'every node holding ranks of the job must be connected: a save that reaches',
	'some ranks of a DDP job and not others leaves the others waiting in a collective',
];

/** A job's part on one node: that node, and the job as its agent names it (its own ranks only). */
export interface JobPart {
	readonly node: NodeView;
	readonly job: Job;
}

/** What the confirm box names, fixed when it opens: the job's id across nodes, and each node's target pids. */
export interface FleetTarget {
	readonly job: string;
	readonly nodes: readonly {readonly node: string; readonly pids: readonly number[]}[];
}

/** The parts of job `id` (its id across nodes) on every node's latest scan, nodes in their listed order. */
export function jobParts(nodes: readonly NodeView[], id: string): JobPart[] {
	const parts: JobPart[] = [];
	for (const node of nodes)
		for (const job of node.snapshot?.ranks?.jobs ?? [])
			if (fleetJobId(node.name, job) === id && job.ranks.length > 0) parts.push({node, job});
	return parts;
}

/**
 * The job of node `name` and its ranks on every node, or why there is none to act on: a node that has sent no scan,
 * has no ranks, or runs several jobs (nothing picks one of them here: its own view's cursor does).
 */
export function pickFleetJob(
	nodes: readonly NodeView[],
	name: string | undefined,
): {readonly target: FleetTarget} | {readonly why: string} {
	const node = nodes.find(candidate => candidate.name === name);
	if (!node) return {why: 'no node: nothing to signal'};
	const jobs = node.snapshot?.ranks?.jobs.filter(job => job.ranks.length > 0);
	if (!jobs) return {why: `${node.name} has sent no rank scan yet: nothing to signal`};
	if (jobs.length === 0) return {why: `no ranks on ${node.name}: nothing to signal`};
	if (jobs.length > 1) {
		const ids = jobs.map(job => fleetJobId(node.name, job)).join(', ');
		return {why: `${node.name} runs ${jobs.length} jobs (${ids}): Enter opens it, where the cursor picks one`};
	}
	const id = fleetJobId(node.name, jobs[0]!);
	const parts = jobParts(nodes, id);
	return {
		target: {job: id, nodes: parts.map(part => ({node: part.node.name, pids: part.job.ranks.map(r => r.pid)}))},
	};
}

/** The parts of the job narrowed to the target's pids (ranks that came since the box opened are not targets). */
export function targetParts(nodes: readonly NodeView[], target: FleetTarget): JobPart[] {
	return jobParts(nodes, target.job).flatMap(part => {
		const pids = target.nodes.find(one => one.node === part.node.name)?.pids ?? [];
		const ranks = part.job.ranks.filter(rank => pids.includes(rank.pid));
		return ranks.length === 0 ? [] : [{node: part.node, job: {...part.job, ranks}}];
	});
}

/** `node2 lost: agent killed by SIGKILL; reconnecting` for each node of the job that is not connected; null if none. */
export function notConnected(parts: readonly JobPart[], now: number): string | null {
	const off = parts.filter(part => part.node.state !== 'connected');
	return off.length === 0 ? null : off.map(part => `${part.node.name} ${linkWords(part.node, now)}`).join('; ');
}
