import {columns} from '../../format/columns.js';
import AlertsPane, {alertsNeed} from '../panes/AlertsPane.js';
import type {Band, PaneDefinition} from '../panes/pane.js';
import RanksPane, {ranksNeed} from '../panes/RanksPane.js';
import type {FleetScreenData} from './fleet-screen-data.js';
import {nodesPane} from './NodesPane.js';

// The many-node screen, top to bottom: the nodes, every node's ranks (a host column, a job spanning nodes one job),
// every node's alerts and events. The ranks and alerts are the one-node screen's panes, given the fleet's data.

/** A host column no wider than this: node names are cut (`…`) past it. */
const HOST_MAX = 16;
const NO_MARKS: ReadonlySet<number> = new Set();

const fleetRanksPane: PaneDefinition<FleetScreenData> = {
	id: 'ranks',
	// The host column takes room the one-node screen gives the command.
	wideFrom: 130,
	firstRows: 8,
	need: data => ranksNeed(data.ranks),
	render: (data, box) => (
		<RanksPane
			ranks={data.ranks}
			error={null}
			// Enter opens a node (the cursor is on the nodes): no rank is selected, none is a target here.
			cursor={null}
			marked={NO_MARKS}
			width={box.width}
			height={box.height}
			now={data.now}
			compact={box.compact}
			hostWidth={Math.min(HOST_MAX, Math.max(4, ...data.rows.map(row => columns(row.name))))}
		/>
	),
};

const fleetAlertsPane: PaneDefinition<FleetScreenData> = {
	id: 'alerts',
	wideFrom: 70,
	firstRows: 3,
	need: data => alertsNeed(data.alerts.length + data.events.length),
	render: (data, box) => (
		<AlertsPane
			alerts={data.alerts}
			events={data.events}
			scroll={data.alertsScroll}
			scrollable
			now={data.now}
			width={box.width}
			height={box.height}
			compact={box.compact}
		/>
	),
};

export const FLEET_SCREEN: readonly Band<FleetScreenData>[] = [
	{panes: [nodesPane]},
	{panes: [fleetRanksPane]},
	{panes: [fleetAlertsPane]},
];
