import type {Job} from '../core/types.js';
import {SIGNAL_LEGEND} from '../format/signals.js';
import type {SignalName} from '../ranks/signals.js';
import {type ConfirmText, confirmText} from './confirm-text.js';
import {helpEntries} from './keymap.js';
import type {TextView, UiState} from './state.js';
import Confirm from './widgets/Confirm.js';
import Help from './widgets/Help.js';
import TextBox from './widgets/TextBox.js';

// The box that takes the screen in every mode but the main one: the confirm box, a send's
// outcome, the help, the analysis, a rank's detail. It only renders what the state holds.

export interface OverlayProps {
	readonly ui: UiState;
	/** The jobs at the last scan: the confirm box's target job is looked up here. */
	readonly jobs: readonly Job[];
	/** The signal of the confirm box's action. */
	readonly signal: SignalName | null;
	/** The session's RUN_DIR (null without one): the box says whether the save will be watched. */
	readonly runDir: string | null;
	readonly readonly: boolean;
	/** A node's view under the many-node screen: its help lists the way back too. */
	readonly fleet?: boolean;
	readonly width: number;
	readonly height: number;
}

/** The open confirm box's words, or null with none open: the box draws them, the app scrolls them. */
export function openConfirmText(
	ui: UiState,
	jobs: readonly Job[],
	signal: SignalName | null,
	runDir: string | null,
): ConfirmText | null {
	if (!ui.confirm || !signal) return null;
	const {action, target} = ui.confirm;
	return confirmText(action, signal, target, jobs.find(j => j.id === target.job) ?? null, runDir);
}

function ConfirmOverlay({ui, jobs, signal, runDir, width, height}: OverlayProps) {
	const text = openConfirmText(ui, jobs, signal, runDir);
	if (!ui.confirm || !signal || text === null) return null;
	return (
		<Confirm
			title={text.title}
			lines={text.lines}
			scroll={ui.scroll}
			confirmLabel={`Send ${signal}`}
			selected={ui.confirm.choice}
			danger={ui.confirm.action === 'emergency'}
			width={width}
			height={height}
		/>
	);
}

/** The lines under the keys in help: the signal marks' legend, and what --readonly takes away. */
export function helpNotes(readonly: boolean): string[] {
	return [SIGNAL_LEGEND, ...(readonly ? ['--readonly: s and e are off; no signal can be sent'] : [])];
}

/** The overlay of the current mode, or null on the main screen. */
export default function Overlay(props: OverlayProps) {
	const {ui, width, height} = props;
	// The analysis and a rank's detail: text that scrolls in a box.
	const scrolling = (view: TextView, footer: string) => (
		<TextBox title={view.title} lines={view.lines} scroll={ui.scroll} footer={footer} width={width} height={height} />
	);
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
					footer="Enter or Esc: close · the checkpoints pane says what came of it"
					place="top"
					width={width}
					height={height}
				/>
			) : null;
		case 'help':
			return (
				<Help
					entries={helpEntries(props.readonly, props.fleet)}
					notes={helpNotes(props.readonly)}
					title="traintop keys"
					width={width}
					height={height}
					scroll={ui.scroll}
				/>
			);
		case 'analysis':
			return ui.analysis ? scrolling(ui.analysis, '↑↓ PgUp PgDn: scroll · Esc: close') : null;
		case 'detail':
			return ui.detail ? scrolling(ui.detail, '↑↓ PgUp PgDn: scroll · Esc or q: back to the ranks') : null;
	}
}
