import type {DeadlineRisk} from '../../core/deadline-risk.js';
import type {NodeView} from '../../fleet/node-state.js';
import {freshestJobView} from '../../session/job-level.js';
import {slurmViewOf} from '../../slurm/scheduler-state.js';
import type {SlurmView} from '../../slurm/types.js';

// The SLURM job as the list of nodes shows it on top: every node of a job reads the same job from the controller, so
// the freshest read among the nodes' latest snapshots is the job's (its time left, its requeues), with the time at
// risk that node judged against its own run dir's save cadence. Pure.

export interface JobSlurm {
	readonly view: SlurmView;
	readonly risk: DeadlineRisk | null;
}

/** The job view of the freshest read among the nodes (session/job-level.ts), or null when no node is under SLURM. */
export function jobSlurm(nodes: readonly NodeView[]): JobSlurm | null {
	const best = freshestJobView(nodes.flatMap(node => (node.snapshot ? [node.snapshot] : [])));
	const view = slurmViewOf(best?.scheduler);
	return best && view ? {view, risk: best.deadlineRisk ?? null} : null;
}
