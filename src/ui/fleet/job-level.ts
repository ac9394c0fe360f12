import type {DeadlineRisk} from '../../core/deadline-risk.js';
import type {NodeView} from '../../fleet/node-state.js';
import type {SchedulerState} from '../../scheduler/types.js';
import {freshestJobView} from '../../session/job-level.js';

// The scheduler's job as the list of nodes shows it on top: every node of a job reads the same job from the
// scheduler, so the freshest read among the nodes' latest snapshots is the job's (its time left, its requeues), with
// the time at risk that node judged against its own run dir's save cadence. Pure.

export interface FleetJob {
	readonly state: SchedulerState;
	readonly risk: DeadlineRisk | null;
}

/** The job of the freshest read among the nodes (session/job-level.ts), or null when no node is in a scheduler's job. */
export function fleetJob(nodes: readonly NodeView[]): FleetJob | null {
	const best = freshestJobView(nodes.flatMap(node => (node.snapshot ? [node.snapshot] : [])));
	const state = best?.scheduler ?? null;
	return best && state ? {state, risk: best.deadlineRisk ?? null} : null;
}
