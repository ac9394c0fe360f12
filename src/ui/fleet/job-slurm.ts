import type {SlurmView} from '../../core/slurm-types.js';
import type {CheckpointIndex} from '../../core/types.js';
import type {NodeView} from '../../fleet/node-state.js';

// The SLURM job as the list of nodes shows it on top: every node of a job reads the same job from the controller, so
// the freshest read among the nodes' latest snapshots is the job's (its time left, its requeues), with the
// checkpoints of the node that read it (the time left is weighed against that run dir's save cadence). Pure.

export interface JobSlurm {
	readonly view: SlurmView;
	readonly checkpoints: CheckpointIndex | null;
}

/** The newest job view (by `readAt`; the first listed node wins a tie), or null when no node is under SLURM. */
export function jobSlurm(nodes: readonly NodeView[]): JobSlurm | null {
	let best: JobSlurm | null = null;
	for (const node of nodes) {
		const view = node.snapshot?.slurm;
		if (!view || (best !== null && view.readAt <= best.view.readAt)) continue;
		best = {view, checkpoints: node.snapshot?.checkpoints ?? null};
	}
	return best;
}
