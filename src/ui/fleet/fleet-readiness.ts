import type {Readiness, ReadinessVerdict} from '../../core/readiness-types.js';
import type {NodeView} from '../../fleet/node-state.js';
import {worstOfNodes} from './fleet-worst.js';

// Every node's readiness verdicts as the merged rank set's jobs name them: the node that fares worst decides (one rank
// without a handler anywhere loses the job).

const WORST_FIRST: readonly ReadinessVerdict[] = ['not-ready', 'at-risk', 'unknown', 'ready'];

export function fleetReadiness(nodes: readonly NodeView[]): readonly Readiness[] {
	return worstOfNodes(
		nodes,
		snapshot => snapshot.readiness,
		r => WORST_FIRST.indexOf(r.verdict),
	);
}
