import type {NodeView} from '../../fleet/node-state.js';
import type {ConfirmText} from '../confirm-text.js';
import Confirm from '../widgets/Confirm.js';
import Help from '../widgets/Help.js';
import TextBox from '../widgets/TextBox.js';
import {fleetConfirmText} from './fleet-confirm-text.js';
import type {FleetJobActions} from './fleet-job-actions.js';
import type {FleetUiState} from './fleet-state.js';

// The box over the list of nodes: its help, the confirm box of s/e on a job across its nodes, or what that send did
// rank by rank with, under it, what came of the save (this screen has no checkpoints pane to say it) and, after an
// emergency, of each node's ranks.

export interface Props {
	readonly ui: FleetUiState;
	readonly nodes: readonly NodeView[];
	readonly now: number;
	readonly actions: FleetJobActions;
	readonly help: readonly {keys: string; description: string}[];
	readonly notes: readonly string[];
	readonly width: number;
	readonly height: number;
}

/** The open confirm box's words, or null with none open: the box draws them, the app scrolls them. */
export function openFleetConfirmText(
	ui: FleetUiState,
	nodes: readonly NodeView[],
	now: number,
	actions: FleetJobActions,
): ConfirmText | null {
	if (ui.mode !== 'confirm' || !ui.confirm) return null;
	const signal = actions.signalOf(ui.confirm.action);
	return fleetConfirmText(ui.confirm.action, signal, ui.confirm.target, nodes, now);
}

export default function FleetOverlay({ui, nodes, now, actions, help, notes, width, height}: Props) {
	if (ui.mode === 'help')
		return (
			<Help
				entries={help}
				notes={notes}
				title="traintop keys (many nodes)"
				width={width}
				height={height}
				scroll={ui.scroll}
			/>
		);
	const words = openFleetConfirmText(ui, nodes, now, actions);
	if (ui.confirm && words !== null) {
		const signal = actions.signalOf(ui.confirm.action);
		return (
			<Confirm
				title={words.title}
				lines={words.lines}
				scroll={ui.scroll}
				confirmLabel={`Send ${signal}`}
				selected={ui.confirm.choice}
				danger={ui.confirm.action === 'emergency'}
				width={width}
				height={height}
			/>
		);
	}
	if (ui.mode === 'result' && ui.result) {
		const status = ui.saveStatus ? ['', ui.saveStatus.text] : [];
		// After an emergency: what became of each node's ranks, under the save.
		const exits = ui.exits.length > 0 ? ['', ...ui.exits] : [];
		return (
			<TextBox
				title={ui.result.title}
				lines={[...ui.result.lines, ...status, ...exits]}
				footer="Enter or Esc: close"
				place="top"
				width={width}
				height={height}
			/>
		);
	}
	return null;
}
