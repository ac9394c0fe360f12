import type {RankProcess} from '../core/types.js';
import {SIGNAL_LEGEND} from '../format/signals.js';
import {previewLine} from '../ranks/preview.js';
import type {SignalName} from '../ranks/signals.js';
import {helpEntries} from './keymap.js';
import {signalWord, targetPids, type UiState} from './state.js';
import Confirm from './widgets/Confirm.js';
import Help from './widgets/Help.js';
import TextBox from './widgets/TextBox.js';

// The box that takes the screen in every mode but the main one: the confirm box, a send's
// outcome, the help, the analysis. It only renders what the state holds.

export interface OverlayProps {
	readonly ui: UiState;
	/** The ranks at the last scan, in display order. */
	readonly ranks: readonly RankProcess[];
	/** The signal of the confirm box's action. */
	readonly signal: SignalName | null;
	readonly readonly: boolean;
	readonly width: number;
	readonly height: number;
}

function ConfirmOverlay({ui, ranks, signal, width, height}: OverlayProps) {
	if (!ui.confirm || !signal) return null;
	const chosen = new Set(
		targetPids(
			ui,
			ranks.map(r => r.pid),
		),
	);
	const targets = ranks.filter(r => chosen.has(r.pid));
	const marked = ranks.some(r => ui.marked.has(r.pid));
	const plural = targets.length === 1 ? '' : 's';
	const which = marked ? `${targets.length} marked rank${plural}` : `all ${targets.length} rank${plural}`;
	return (
		<Confirm
			title={`Send ${signalWord(ui.confirm.action, signal)} to ${which}?`}
			lines={targets.map(r => previewLine(r, signal, false, 'the TUI never forces; traintop signal --force does'))}
			confirmLabel={`Send ${signal}`}
			selected={ui.confirm.choice}
			danger={ui.confirm.action === 'emergency'}
			width={width}
			height={height}
		/>
	);
}

/** The overlay of the current mode, or null on the main screen. */
export default function Overlay(props: OverlayProps) {
	const {ui, width, height} = props;
	switch (ui.mode) {
		case 'main':
			return null;
		case 'confirm':
			return <ConfirmOverlay {...props} />;
		case 'result':
			return ui.result ? (
				<TextBox
					title={ui.result.title}
					lines={ui.result.lines}
					footer="Enter or Esc: close · the checkpoints pane follows the save"
					width={width}
					height={height}
				/>
			) : null;
		case 'help': {
			const notes = [SIGNAL_LEGEND, ...(props.readonly ? ['--readonly: s and e are off; no signal can be sent'] : [])];
			return (
				<Help entries={helpEntries(props.readonly)} notes={notes} title="traintop keys" width={width} height={height} />
			);
		}
		case 'analysis':
			return ui.analysis ? (
				<TextBox
					title={ui.analysis.title}
					lines={ui.analysis.lines}
					scroll={ui.scroll}
					footer="↑↓ PgUp PgDn: scroll · Esc: close"
					width={width}
					height={height}
				/>
			) : null;
	}
}
