import {useCallback, useEffect, useMemo, useReducer} from 'react';
import {Text, useApp, useInput} from 'ink';
import {truncate} from '../../format/columns.js';
import App from '../app.js';
import {boxTextWidth, confirmRows, helpRows} from '../box-text.js';
import {keyBarHints} from '../hints.js';
import useTerminalSize from '../hooks/use-terminal-size.js';
import {suspendProcess} from '../hooks/use-suspend.js';
import useValue from '../hooks/use-value.js';
import {keyPresses} from '../key-presses.js';
import {helpEntries} from '../keymap.js';
import {layoutBands} from '../layout.js';
import {maxBoxSize} from '../overlay-box.js';
import Screen from '../screen.js';
import type {KeyHint} from '../widgets/key-bar.js';
import {alertEntries, alertsScrollMax} from '../panes/alert-window.js';
import {fleetAlerts} from './fleet-alerts.js';
import {FLEET_SCREEN} from './fleet-panes.js';
import {fleetRankSet} from './fleet-ranks.js';
import type {FleetScreenData} from './fleet-screen-data.js';
import {FLEET_INITIAL, type FleetKeyContext, fleetCursor, reduceFleet} from './fleet-state.js';
import {runFleetSend} from './fleet-send.js';
import type {FleetTuiSession} from './fleet-tui-session.js';
import FleetOverlay, {openFleetConfirmText} from './FleetOverlay.js';
import NodeBanner from './NodeBanner.js';
import {nodeRow, orderRows} from './node-rows.js';

// The many-node screen's one stateful component, as app.tsx is the one-node screen's: it reads the fleet's view,
// keeps its state in one reducer (fleet-state.ts) fed by its one input handler, and renders the screen the layout
// lays out, or, once Enter opened a node, that node's own full view (the one-node App) under a line that says
// how fresh the node is. The App takes the keys there; its Esc comes back here.

export interface Props {
	readonly session: FleetTuiSession;
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

export default function FleetApp({session}: Props) {
	const {exit} = useApp();
	const view = useValue(session.view);
	const {columns, rows} = useTerminalSize();
	const [ui, dispatch] = useReducer(reduceFleet, FLEET_INITIAL);
	const inNode = ui.mode === 'node' && ui.open !== null;

	useEffect(() => {
		if (ui.effects.length === 0) return;
		dispatch({type: 'effects-taken', count: ui.effects.length});
		for (const effect of ui.effects) {
			if (effect.kind === 'quit') exit();
			else if (effect.kind === 'send')
				void runFleetSend(effect, () => session.view.get(), session.jobActions, dispatch);
			else suspendProcess();
		}
	}, [ui.effects, exit, session]);

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
	// Not drawn while a node's own view is open: not merged for nothing 10 times a second.
	const ranks = useMemo(() => (inNode ? null : fleetRankSet(view.nodes)), [inNode, view.nodes]);
	// The nodes' link changes and their differences from cluster.yaml (seen, cleared): news about the nodes.
	const declaredEvents = session.declared.events();
	const nodeNews = useMemo(
		() => (declaredEvents.length === 0 ? view.events : [...(view.events ?? []), ...declaredEvents]),
		[view.events, declaredEvents],
	);
	const {alerts, events} = useMemo(
		() => (inNode ? {alerts: [], events: []} : fleetAlerts(view.nodes, nodeNews)),
		[inNode, view.nodes, nodeNews],
	);
	const cursor = fleetCursor(ui, names);
	const data: FleetScreenData = {
		now: view.time,
		rows: ordered,
		cursor,
		order: ui.order,
		ranks,
		alerts,
		events,
		alertsScroll: ui.alertsScroll,
	};
	const layout = layoutBands(columns, rows, data, FLEET_SCREEN);
	// The alerts pane's entries as it lays them out: how far `[` scrolls it.
	const alertList = useMemo(() => alertEntries(alerts, events), [alerts, events]);
	const back = useCallback(() => dispatch({type: 'back'}), []);
	// s and e on the nodes act on the cursor node's job across its nodes; --readonly takes them away here too.
	const help = helpEntries(session.readonly, true);
	const notes = useMemo(() => [...HELP_NOTES, signalNote(session.readonly)], [session.readonly]);
	const signals = useMemo(
		() => ({save: session.jobActions.signalOf('save'), emergency: session.jobActions.signalOf('emergency')}),
		[session.jobActions],
	);
	const box = maxBoxSize(columns, rows);
	// The confirm box's rows, as it wraps them: how far ↑↓ scroll it.
	const confirmWords = openFleetConfirmText(ui, view.nodes, view.time, session.jobActions);
	const confirmLayout = confirmWords && confirmRows(confirmWords.title, confirmWords.lines, columns, rows);
	const confirmScroll = confirmLayout ? {lines: confirmLayout.body.length, rows: confirmLayout.shown} : undefined;

	useInput(
		(input, key) => {
			const context: FleetKeyContext = {
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
			};
			for (const one of keyPresses(input, key)) dispatch({type: 'input', input: one, key, context});
		},
		{isActive: !inNode},
	);

	if (inNode) {
		const name = ui.open!;
		const node = view.nodes.find(candidate => candidate.name === name) ?? null;
		const banner = (
			<NodeBanner
				node={node}
				name={name}
				now={view.time}
				width={columns}
				readonly={session.readonly}
				findings={session.declared.of(name)}
			/>
		);
		return <App key={name} session={session.node(name)} within={{banner, back}} />;
	}
	if (layout.tooSmall) {
		return (
			<Text wrap="truncate-end">{`terminal ${columns}×${rows} is too small: traintop needs ${layout.minColumns}×${layout.minRows} (q quits)`}</Text>
		);
	}
	const mode = ui.mode === 'node' ? 'nodes' : ui.mode;
	const notice = mode === 'nodes' && ui.notice && ui.notice.until > Date.now() ? ui.notice.text : null;
	const keys = keyBarHints({mode, readonly: session.readonly, notice: null, logTrouble: null, columns, fleet: true});
	const hints = mode === 'nodes' ? nodesBar(keys, session.readonly, notice, columns) : keys;
	// Null on the list itself: the screen lays its panes out to the full height then.
	const overlay =
		mode === 'nodes' ? null : (
			<FleetOverlay
				ui={ui}
				nodes={view.nodes}
				now={view.time}
				actions={session.jobActions}
				help={help}
				notes={notes}
				width={columns}
				height={rows}
			/>
		);
	return <Screen layout={layout} data={data} overlay={overlay} hints={hints} />;
}
