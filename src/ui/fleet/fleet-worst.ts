import type {Snapshot} from '../../core/types.js';
import type {NodeView} from '../../fleet/node-state.js';
import {fleetJobId} from './fleet-ranks.js';

// A per-job verdict of every node (readiness, progress) as the merged rank set's jobs name them: a job spanning nodes
// is judged on each node for its own ranks, and the node that fares worst decides.

export function worstOfNodes<T extends {readonly job: string}>(
	nodes: readonly NodeView[],
	of: (snapshot: Snapshot) => readonly T[] | undefined,
	/** Lower is worse. */
	severity: (verdict: T) => number,
): readonly T[] {
	const byJob = new Map<string, T>();
	for (const node of nodes) {
		const snapshot = node.snapshot;
		if (!snapshot) continue;
		for (const verdict of of(snapshot) ?? []) {
			const job = snapshot.ranks?.jobs.find(one => one.id === verdict.job);
			if (job === undefined) continue;
			const id = fleetJobId(node.name, job);
			const known = byJob.get(id);
			if (known === undefined || severity(verdict) < severity(known)) byJob.set(id, {...verdict, job: id});
		}
	}
	return [...byJob.values()];
}
