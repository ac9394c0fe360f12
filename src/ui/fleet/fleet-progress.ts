import type {JobProgress, ProgressVerdict} from '../../core/progress-types.js';
import type {NodeView} from '../../fleet/node-state.js';
import {worstOfNodes} from './fleet-worst.js';

// Every node's progress verdicts as the merged rank set's jobs name them: when one rank on one node sleeps, that
// node's judge names it (hung) while the other nodes see only ranks waiting alike (stalled): the hung node's verdict
// is the job's.

const WORST_FIRST: readonly ProgressVerdict[] = ['hung', 'stalled', 'unknown', 'progressing'];

export function fleetProgress(nodes: readonly NodeView[]): readonly JobProgress[] {
	return worstOfNodes(
		nodes,
		snapshot => snapshot.progress,
		p => WORST_FIRST.indexOf(p.verdict),
	);
}
