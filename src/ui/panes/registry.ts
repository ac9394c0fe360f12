import {fleetAlertsPane, fleetJobPane, fleetRanksPane} from '../fleet/fleet-panes.js';
import type {FleetScreenData} from '../fleet/fleet-screen-data.js';
import {nodesPane} from '../fleet/NodesPane.js';
import {historyPane} from '../history/HistoryPane.js';
import {alertsPane} from './AlertsPane.js';
import {checkpointsPane} from './CheckpointsPane.js';
import {jobPane} from './JobPane.js';
import {memoryPane} from './MemoryPane.js';
import type {Band} from './pane.js';
import {ranksPane} from './RanksPane.js';

// The screens, top to bottom: a line per band. A new pane is its own files and a line here.

/** From this width checkpoints and alerts sit side by side. */
const SPLIT_COLUMNS = 160;

export const SCREEN: readonly Band[] = [
	{panes: [memoryPane]},
	{panes: [historyPane]},
	{panes: [jobPane]},
	{panes: [ranksPane]},
	{panes: [checkpointsPane, alertsPane], sideBySideFrom: SPLIT_COLUMNS, shares: [0.6]},
];

/** The list of nodes: the job as its scheduler sees it (time left, requeues), the nodes, their ranks, their alerts. */
export const NODES_SCREEN: readonly Band<FleetScreenData>[] = [
	{panes: [fleetJobPane]},
	{panes: [nodesPane]},
	{panes: [fleetRanksPane]},
	{panes: [fleetAlertsPane]},
];
