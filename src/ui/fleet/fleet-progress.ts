import type {JobProgress, ProgressVerdict} from '../../core/progress-types.js';
import type {NodeView} from '../../fleet/node-state.js';
import {fleetJobId} from './fleet-ranks.js';

// Every node's progress verdicts as the merged rank set's jobs name them: a job spanning nodes is judged on each node
// for its own ranks, and the node that fares worst decides. When one rank on one node sleeps, that node's judge names
// it (hung) while the other nodes see only ranks waiting alike (stalled): the hung node's verdict is the job's.

const WORST_FIRST: readonly ProgressVerdict[] = ['hung', 'stalled', 'unknown', 'progressing'];

const rankOf = (p: JobProgress): number => WORST_FIRST.indexOf(p.verdict);

export function fleetProgress(nodes: readonly NodeView[]): readonly JobProgress[] {
	const byJob = new Map<string, JobProgress>();
	for (const node of nodes) {
		const snapshot = node.snapshot;
		for (const p of snapshot?.progress ?? []) {
			const job = snapshot?.ranks?.jobs.find(one => one.id === p.job);
			if (job === undefined) continue;
			const id = fleetJobId(node.name, job);
			const known = byJob.get(id);
			if (known === undefined || rankOf(p) < rankOf(known)) byJob.set(id, {...p, job: id});
		}
	}
	return [...byJob.values()];
}
