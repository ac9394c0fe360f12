import type {Job} from '../core/types.js';
import type {NodeView} from '../fleet/node-state.js';
import {SIGNAL_LEGEND} from '../format/signals.js';
import type {SignalName} from '../ranks/signals.js';
import {type ConfirmText, confirmText} from './confirm-text.js';
import {acrossNodes} from './send-flow.js';
import type {TextView, UiState} from './state.js';
import Confirm from './widgets/Confirm.js';
import Help from './widgets/Help.js';
import TextBox from './widgets/TextBox.js';

// The box that takes the screen in every mode but the main one, on the list of nodes and in a node's view alike: the
// confirm box, a send's outcome, the help, the analysis, a rank's detail. It only renders what the state holds.

/** Where the confirm box's target is looked up: one node's jobs at the last scan, or every node as the fleet sees it. */
export interface ConfirmSource {
	/** The jobs at the last scan (a node's view): a target of one node's ranks is looked up here. */
	readonly jobs: readonly Job[];
	/** The session's RUN_DIR (null without one): the box says whether the save will be watched. */
	readonly runDir: string | null;
	/** Every node (the list of nodes): a target across nodes is looked up here. */
	readonly nodes: readonly NodeView[];
	/** Epoch ms of the fleet's view. */
	readonly now: number;
}

export interface OverlayProps {
	readonly ui: UiState;
	/** The open confirm box's words (openConfirmText), null with none open. */
	readonly confirm: ConfirmText | null;
	/** The signal of the confirm box's action. */
	readonly signal: SignalName | null;
	/** The help's keys, the lines under them, its title. */
	readonly help: {
		readonly entries: readonly {keys: string; description: string}[];
		readonly notes: readonly string[];
		readonly title: string;
	};
	readonly width: number;
	readonly height: number;
}

/** The open confirm box's words, or null with none open: the box draws them, the app scrolls them. */
export function openConfirmText(ui: UiState, signal: SignalName | null, source: ConfirmSource): ConfirmText | null {
	if (ui.mode !== 'confirm' || !ui.confirm || !signal) return null;
	const {action, target} = ui.confirm;
	if (acrossNodes(target)) return confirmText(action, signal, target, {nodes: source.nodes, now: source.now});
	const job = source.jobs.find(j => j.id === target.job) ?? null;
	const text = confirmText(action, signal, target, {job, sessionRunDir: source.runDir});
	// The drill (d) sends the save signal as s does; its box says what else it does.
	return ui.confirm.drill ? {...text, title: `Drill: ${text.title.replace(/\?$/, ', and time its save?')}`} : text;
}

/** The lines under the keys in help: the signal marks' legend, and what --readonly takes away. */
export function helpNotes(readonly: boolean): string[] {
	return [SIGNAL_LEGEND, ...(readonly ? ['--readonly: s and e are off; no signal can be sent'] : [])];
}

/**
 * A send's outcome: rank by rank. A node's view says what came of the save in its checkpoints pane; the list of nodes
 * has none, so the box says it under the ranks, and after an emergency what became of each node's ranks.
 */
function resultBox({ui, width, height}: OverlayProps, result: TextView) {
	const onNodes = ui.view === 'nodes';
	const status = onNodes && ui.saveStatus ? ['', ui.saveStatus.text] : [];
	const exits = onNodes && ui.exits.length > 0 ? ['', ...ui.exits] : [];
	return (
		<TextBox
			title={result.title}
			lines={[...result.lines, ...status, ...exits]}
			footer={onNodes ? 'Enter or Esc: close' : 'Enter or Esc: close · the checkpoints pane says what came of it'}
			place="top"
			width={width}
			height={height}
		/>
	);
}

/** The overlay of the current mode, or null on the main screen. */
export default function Overlay(props: OverlayProps) {
	const {ui, confirm, signal, width, height} = props;
	// The analysis and a rank's detail: text that scrolls in a box.
	const scrolling = (view: TextView, footer: string) => (
		<TextBox title={view.title} lines={view.lines} scroll={ui.scroll} footer={footer} width={width} height={height} />
	);
	switch (ui.mode) {
		case 'main':
			return null;
		case 'confirm':
			return ui.confirm && signal && confirm ? (
				<Confirm
					title={confirm.title}
					lines={confirm.lines}
					scroll={ui.scroll}
					confirmLabel={`Send ${signal}`}
					selected={ui.confirm.choice}
					danger={ui.confirm.action === 'emergency'}
					width={width}
					height={height}
				/>
			) : null;
		case 'result':
			return ui.result ? resultBox(props, ui.result) : null;
		case 'help':
			return (
				<Help
					entries={props.help.entries}
					notes={props.help.notes}
					title={props.help.title}
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
