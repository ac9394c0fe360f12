import type {Alert, JobEvent, RankSet} from '../../core/types.js';
import type {Readiness} from '../../core/readiness-types.js';
import type {JobProgress} from '../../core/progress-types.js';
import type {FleetJob} from './job-level.js';
import type {NodeOrder, NodeRow} from './node-rows.js';

/** Everything the many-node screen's panes show, gathered once per view by the fleet app: each pane picks its own. */
export interface FleetScreenData {
	/** Epoch ms of the fleet's view. */
	readonly now: number;
	/** A row per node, in the order drawn. */
	readonly rows: readonly NodeRow[];
	/** Index of the selected node among `rows`: what Enter opens. */
	readonly cursor: number;
	readonly order: NodeOrder;
	/** Every node's ranks, a job spanning nodes one job, each rank with its node's name; null before any scan. */
	readonly ranks: RankSet | null;
	/** Each merged job's preemption readiness, the worst of its nodes'. */
	readonly readiness: readonly Readiness[];
	/** Each merged job's progress, the worst of its nodes'. */
	readonly progress: readonly JobProgress[];
	/** Every node's recent level changes and job events, each naming its node, oldest first. */
	readonly alerts: readonly Alert[];
	readonly events: readonly JobEvent[];
	/** Alerts pane entries skipped from the newest (`[` `]`); absent: 0. */
	readonly alertsScroll?: number;
	/** The scheduler's job on top: the freshest state among the nodes' snapshots; null outside a scheduler's job. */
	readonly job: FleetJob | null;
}
