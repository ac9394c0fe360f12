import {useMemo} from 'react';
import {Text} from 'ink';
import type {FleetView} from '../fleet/fleet.js';
import {truncate} from '../format/columns.js';
import {boxTextWidth, confirmRows, helpRows} from './box-text.js';
import {fleetAlerts} from './fleet/fleet-alerts.js';
import {fleetReadiness} from './fleet/fleet-readiness.js';
import {fleetProgress} from './fleet/fleet-progress.js';
import {fleetRankSet} from './fleet/fleet-ranks.js';
import type {FleetScreenData} from './fleet/fleet-screen-data.js';
import type {FleetTuiSession} from './fleet/fleet-tui-session.js';
import {fleetJob} from './fleet/job-level.js';
import {nodeRow, orderRows} from './fleet/node-rows.js';
import {keyBarHints} from './hints.js';
import useTerminalSize from './hooks/use-terminal-size.js';
import {type KeyContextSlot, useKeyContext} from './hooks/use-keys.js';
import {helpEntries} from './keymap.js';
import {layoutBands} from './layout.js';
import Overlay, {openConfirmText} from './overlay.js';
import {maxBoxSize} from './overlay-box.js';
import {alertEntries, alertsScrollMax} from './panes/alert-window.js';
import {NODES_SCREEN} from './panes/registry.js';
import Screen from './screen.js';
import {type NodesKeyContext, nodeCursor, type UiState} from './state.js';
import type {KeyHint} from './widgets/key-bar.js';

// The list of nodes (traintop --hosts): a view of the app's one state (state.ts), drawn from the fleet's view: the
// scheduler's job, its time left and requeues, on top (the freshest among the nodes), a row per node, every node's
// ranks, alerts and events; its one input handler sends the keys to the one reducer. Enter opens a node's own view
// (node-view.tsx), Esc there comes back.

export interface Props {
	readonly session: FleetTuiSession;
	/** The fleet's view, as the app read it. */
	readonly view: FleetView;
	readonly ui: UiState;
	/** Where this view says what a key needs to know of it (the app's one key handler asks). */
	readonly keys: KeyContextSlot;
}

/** The help's lines besides the keys: what the nodes pane's words mean. */
const HELP_NOTES = [
	'AGENT: connected; stale = no message for 3 of its intervals; lost = its connection ended (reconnecting)',
	"LVL: the node's worst: its memory levels, stale (WARN) or lost (CRIT), missing or stuck ranks (WARN)",
	"RAM*: against the job's cgroup limit; RANKS: present/declared for the node; NOTE: why lost, clock skew",
	'≠ cluster.yaml (NOTE, WARN): its GPUs, VRAM, RAM, CPUs or jobs are not what --cluster says; ALERTS say how',
];

/** What s and e do on the nodes, or that --readonly took them away. */
const signalNote = (readonly: boolean): string =>
	readonly
		? '--readonly: s and e are off; no signal can be sent'
		: "s/e on the nodes: the cursor node's job on every node that runs it; sent only when each of those nodes is connected";

/** The key bar on the nodes: READ-ONLY and a key's notice before the keys, as on the one-node screen. */
function nodesBar(hints: KeyHint[], readonly: boolean, notice: string | null, columns: number): KeyHint[] {
	const marked = readonly ? [{key: 'READ-ONLY', label: ''}, ...hints] : hints;
	return notice ? [{key: '!', label: truncate(notice, Math.max(10, columns - 4))}, ...marked] : marked;
}

export default function NodesView({session, view, ui, keys: keySlot}: Props) {
	const {columns, rows} = useTerminalSize();

	const ordered = useMemo(
		() =>
			orderRows(
				// Each node's findings were judged as its snapshots came (before this view): only looked up here.
				view.nodes.map(node => nodeRow(node, view.time, session.declared.of(node.name))),
				ui.order,
			),
		[view, ui.order, session.declared],
	);
	const names = useMemo(() => ordered.map(row => row.name), [ordered]);
	const ranks = useMemo(() => fleetRankSet(view.nodes), [view.nodes]);
	const readiness = useMemo(() => fleetReadiness(view.nodes), [view.nodes]);
	const progress = useMemo(() => fleetProgress(view.nodes), [view.nodes]);
	// The job as its scheduler sees it, on top: the freshest view among the nodes' snapshots.
	const job = useMemo(() => fleetJob(view.nodes), [view.nodes]);
	// The nodes' link changes and their differences from cluster.yaml (seen, cleared): news about the nodes.
	const declaredEvents = session.declared.events();
	const nodeNews = useMemo(
		() => (declaredEvents.length === 0 ? view.events : [...(view.events ?? []), ...declaredEvents]),
		[view.events, declaredEvents],
	);
	const {alerts, events} = useMemo(() => fleetAlerts(view.nodes, nodeNews), [view.nodes, nodeNews]);
	const cursor = nodeCursor(ui, names);
	const data: FleetScreenData = {
		now: view.time,
		rows: ordered,
		cursor,
		order: ui.order,
		ranks,
		readiness,
		progress,
		alerts,
		events,
		alertsScroll: ui.alertsScroll,
		job,
	};
	const layout = layoutBands(columns, rows, data, NODES_SCREEN);
	// The alerts pane's entries as it lays them out: how far `[` scrolls it.
	const alertList = useMemo(() => alertEntries(alerts, events), [alerts, events]);
	// s and e on the nodes act on the cursor node's job across its nodes; --readonly takes them away here too.
	const help = helpEntries(session.readonly, true);
	const notes = useMemo(() => [...HELP_NOTES, signalNote(session.readonly)], [session.readonly]);
	const signals = useMemo(
		() => ({save: session.jobActions.signalOf('save'), emergency: session.jobActions.signalOf('emergency')}),
		[session.jobActions],
	);
	const box = maxBoxSize(columns, rows);
	// The confirm box's rows, as it wraps them: how far ↑↓ scroll it.
	const confirmSignal = ui.confirm ? signals[ui.confirm.action] : null;
	const confirmWords = openConfirmText(ui, confirmSignal, {jobs: [], runDir: null, nodes: view.nodes, now: view.time});
	const confirmLayout = confirmWords && confirmRows(confirmWords.title, confirmWords.lines, columns, rows);
	const confirmScroll = confirmLayout ? {lines: confirmLayout.body.length, rows: confirmLayout.shown} : undefined;

	useKeyContext(
		keySlot,
		(): NodesKeyContext => ({
			nodes: names,
			// The title, the header and the "+N more" line are not rows.
			page: Math.max(1, (layout.tooSmall ? 5 : (layout.boxes.nodes?.height ?? 5)) - 3),
			helpLines: helpRows(help, notes, boxTextWidth(columns, rows)).length,
			confirm: confirmScroll,
			helpRows: Math.max(1, box.height - 3),
			fleet: session.view.get().nodes,
			alertsScrollMax: alertsScrollMax(alertList, layout.tooSmall ? 0 : (layout.boxes.alerts?.height ?? 1) - 1),
			readonly: session.readonly,
			signals,
			now: Date.now(),
		}),
	);

	if (layout.tooSmall) {
		return (
			<Text wrap="truncate-end">{`terminal ${columns}×${rows} is too small: traintop needs ${layout.minColumns}×${layout.minRows} (q quits)`}</Text>
		);
	}
	const mode = ui.mode === 'main' ? 'nodes' : ui.mode;
	const notice = mode === 'nodes' && ui.notice && ui.notice.until > Date.now() ? ui.notice.text : null;
	const keys = keyBarHints({mode, readonly: session.readonly, notice: null, logTrouble: null, columns, fleet: true});
	const hints = mode === 'nodes' ? nodesBar(keys, session.readonly, notice, columns) : keys;
	// Null on the list itself: the screen lays its panes out to the full height then.
	const overlay =
		mode === 'nodes' ? null : (
			<Overlay
				ui={ui}
				confirm={confirmWords}
				signal={confirmSignal}
				help={{entries: help, notes, title: 'traintop keys (many nodes)'}}
				width={columns}
				height={rows}
			/>
		);
	return <Screen layout={layout} data={data} overlay={overlay} hints={hints} />;
}
