import type {Readiness, ReadinessVerdict} from '../../core/readiness-types.js';
import type {NodeView} from '../../fleet/node-state.js';
import {fleetJobId} from './fleet-ranks.js';

// Every node's readiness verdicts as the merged rank set's jobs name them: a job spanning nodes is judged on each
// node for its own ranks, and the node that fares worst decides (one rank without a handler anywhere loses the job).

const WORST_FIRST: readonly ReadinessVerdict[] = ['not-ready', 'at-risk', 'unknown', 'ready'];

const rankOf = (r: Readiness): number => WORST_FIRST.indexOf(r.verdict);

export function fleetReadiness(nodes: readonly NodeView[]): readonly Readiness[] {
	const byJob = new Map<string, Readiness>();
	for (const node of nodes) {
		const snapshot = node.snapshot;
		for (const r of snapshot?.readiness ?? []) {
			const job = snapshot?.ranks?.jobs.find(one => one.id === r.job);
			if (job === undefined) continue;
			const id = fleetJobId(node.name, job);
			const known = byJob.get(id);
			if (known === undefined || rankOf(r) < rankOf(known)) byJob.set(id, {...r, job: id});
		}
	}
	return [...byJob.values()];
}
