import {useMemo, useReducer} from 'react';
import {useApp} from 'ink';
import type {FleetTuiSession} from './fleet/fleet-tui-session.js';
import NodeBanner from './fleet/NodeBanner.js';
import useTerminalSize from './hooks/use-terminal-size.js';
import {type KeyContextSlot, useKeys} from './hooks/use-keys.js';
import useUiEffects, {type AcrossNodes} from './hooks/use-ui-effects.js';
import useValue from './hooks/use-value.js';
import NodeView from './node-view.js';
import NodesView from './nodes-view.js';
import {INITIAL_STATE, NODES_INITIAL, reduce, type UiState} from './state.js';
import type {TuiSession} from './tui-session.js';

// The one stateful component, for one node and many: it keeps the whole UI state in one reducer (state.ts), runs
// the effects it queues, and draws the view the state is in: the list of nodes (nodes-view.tsx), or a node's full
// view (node-view.tsx) — on one node, that view alone (a fleet of one shows no list).

export type Props =
	| {
			/** One node: its own view, no list of nodes. */
			readonly session: TuiSession;
			/** Sparkline points kept per metric. */
			readonly historyPoints?: number;
	  }
	| {
			/** Many nodes (traintop --hosts): the list of nodes, and each node's view on Enter. */
			readonly fleet: FleetTuiSession;
			readonly historyPoints?: number;
	  };

export default function App(props: Props) {
	const {exit} = useApp();
	const fleet = 'fleet' in props ? props.fleet : null;
	const [ui, dispatch] = useReducer(reduce, fleet ? NODES_INITIAL : INITIAL_STATE);
	// The session of the node whose view is open: its snapshots, its actions (through its agent on many nodes).
	const node =
		fleet === null ? (props as {session: TuiSession}).session : ui.open === null ? null : fleet.node(ui.open);
	const across = useMemo(
		(): AcrossNodes | null => (fleet ? {view: () => fleet.view.get(), actions: fleet.jobActions} : null),
		[fleet],
	);
	useUiEffects(ui.effects, dispatch, ui.view === 'node' ? node : null, across, exit);
	const keys = useKeys(dispatch);
	if (fleet === null) return <NodeView session={node!} ui={ui} keys={keys} historyPoints={props.historyPoints} />;
	return <Fleet fleet={fleet} ui={ui} keys={keys} historyPoints={props.historyPoints} />;
}

interface FleetProps {
	readonly fleet: FleetTuiSession;
	readonly ui: UiState;
	readonly keys: KeyContextSlot;
	readonly historyPoints?: number;
}

/** Many nodes: the list, or the open node's view under a line that says which node and how fresh it is. */
function Fleet({fleet, ui, keys, historyPoints}: FleetProps) {
	const view = useValue(fleet.view);
	const {columns} = useTerminalSize();
	if (ui.view === 'nodes' || ui.open === null) return <NodesView session={fleet} view={view} ui={ui} keys={keys} />;
	const name = ui.open;
	const banner = (
		<NodeBanner
			node={view.nodes.find(candidate => candidate.name === name) ?? null}
			name={name}
			now={view.time}
			width={columns}
			readonly={fleet.readonly}
			findings={fleet.declared.of(name)}
		/>
	);
	return (
		<NodeView key={name} session={fleet.node(name)} ui={ui} keys={keys} historyPoints={historyPoints} banner={banner} />
	);
}
