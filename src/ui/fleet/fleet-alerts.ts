import {eventPlace} from '../../core/event-places.js';
import type {Alert, JobEvent} from '../../core/types.js';
import type {NodeView} from '../../fleet/node-state.js';

// Every node's recent level changes and job events for the alerts pane, each naming its node (`node2 gpu3 91.2%`,
// `node2 rank 5 (pid 4242) stopped`), merged by time: the pane draws them as it draws one node's. The nodes' routine
// events (saves: core/event-places.ts) are left out before the newest are kept, or 64 nodes' saves would fill it.

/** The newest kept of each list: the pane shows a screenful; 64 nodes' own lists are each the node's 50. */
const KEPT = 200;

export interface FleetAlerts {
	/** Oldest first, each metric prefixed with its node's name. */
	readonly alerts: readonly Alert[];
	/** The alerts pane's events, oldest first, each text prefixed with its node's name. */
	readonly events: readonly JobEvent[];
}

const byTime = (a: {readonly time: number}, b: {readonly time: number}): number => a.time - b.time;

/** `links`: the nodes' link changes (FleetView.events), already naming their node. */
export function fleetAlerts(nodes: readonly NodeView[], links: readonly JobEvent[] = []): FleetAlerts {
	const alerts: Alert[] = [];
	const events: JobEvent[] = [...links];
	for (const node of nodes) {
		const snapshot = node.snapshot;
		if (!snapshot) continue;
		for (const alert of snapshot.recentAlerts) alerts.push({...alert, metric: `${node.name} ${alert.metric}`});
		for (const event of snapshot.recentEvents)
			if (eventPlace(event) === 'alerts') events.push({...event, text: `${node.name} ${event.text}`});
	}
	// Stable: at the same time, nodes keep their listed order.
	return {alerts: alerts.sort(byTime).slice(-KEPT), events: events.sort(byTime).slice(-KEPT)};
}
