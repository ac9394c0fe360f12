import {columns} from '../../format/columns.js';
import AlertsPane, {alertsNeed} from '../panes/AlertsPane.js';
import JobPane, {JOB_PANE_WIDE, jobPaneNeed} from '../panes/JobPane.js';
import type {PaneDefinition} from '../panes/pane.js';
import RanksPane, {ranksNeed} from '../panes/RanksPane.js';
import type {FleetScreenData} from './fleet-screen-data.js';

// The list of nodes' own forms of the one-node screen's panes, given the fleet's data (the bands: panes/registry.ts):
// the scheduler's job on top (the freshest of the nodes' states), every node's ranks (a host column, a job spanning nodes
// one job), every node's alerts and events.

export const fleetJobPane: PaneDefinition<FleetScreenData> = {
	id: 'job',
	wideFrom: JOB_PANE_WIDE,
	firstRows: 2,
	need: ({job}, room) => jobPaneNeed(job?.state ?? null, job?.risk ?? null, room.width < JOB_PANE_WIDE),
	render: ({job}, box) => (
		<JobPane
			state={job?.state ?? null}
			risk={job?.risk ?? null}
			width={box.width}
			height={box.height}
			compact={box.compact}
		/>
	),
};

/** A host column no wider than this: node names are cut (`…`) past it. */
const HOST_MAX = 16;
const NO_MARKS: ReadonlySet<number> = new Set();

export const fleetRanksPane: PaneDefinition<FleetScreenData> = {
	id: 'ranks',
	// The host column takes room the one-node screen gives the command.
	wideFrom: 130,
	firstRows: 8,
	need: data => ranksNeed(data.ranks, data.readiness, data.progress),
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
			readiness={data.readiness}
			progress={data.progress}
			hostWidth={Math.min(HOST_MAX, Math.max(4, ...data.rows.map(row => columns(row.name))))}
		/>
	),
};

export const fleetAlertsPane: PaneDefinition<FleetScreenData> = {
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
