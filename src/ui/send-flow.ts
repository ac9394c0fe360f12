import type {ExitStatus} from '../core/types.js';
import type {ExitReport} from '../fleet/node-exit-watch.js';
import {jobExitStatus, nodeExitLine} from '../fleet/node-exit-words.js';
import {exitState} from '../fleet/node-exits.js';
import type {NodeSendResult} from '../fleet/send-across.js';
import {printable} from '../format/printable.js';
import {outcomeLine} from '../ranks/preview.js';
import type {SendResult} from '../ranks/send.js';
import type {SignalName} from '../ranks/signals.js';
import type {SignalAction} from '../session/actions.js';
import type {FleetTarget} from './fleet/fleet-job-target.js';
import type {SaveStatus} from './panes/CheckpointsPane.js';
import {
	jobExitedStatus,
	outcomeTitle,
	type SaveFinished,
	type SaveWatch,
	saveFinishedStatus,
	sentStatus,
	drillStatus,
	signalWord,
} from './send-status.js';
import type {ProcessIdentity, Target} from './targets.js';

// s and e as state changes, on one node's ranks or on a job across its nodes alike: the confirm box's target (fixed
// when it opened), the result box rank by rank (each line with its node when the send went through the agents),
// what came of the save, and after an emergency what came of the job (its exit on one node, each node's ranks on
// many). The target of a send is a job on N nodes: one node's own ranks (`Target`: this node's kill route, or a node's
// agent from its view) or the job on every node that runs it (`FleetTarget`: each node's agent). Pure; state.ts
// routes the events here.

export type Choice = 'cancel' | 'confirm';

/** A box of text lines: a send's outcome, the analysis. */
export interface TextView {
	readonly title: string;
	readonly lines: readonly string[];
}

/** What s and e act on: one node's ranks of a job, or a job across every node that runs it. */
export type SendTarget = Target | FleetTarget;

/** True for a job across its nodes (the list of nodes' s and e), false for one node's ranks. */
export const acrossNodes = (target: SendTarget): target is FleetTarget => 'nodes' in target;

/** The part of the state that s and e use. */
export interface SendFlowState {
	/**
	 * The box's action, highlighted button (Cancel first, always) and target, fixed when it opened: what is sent is
	 * what the box named, even if the list moves under the cursor meanwhile.
	 */
	readonly confirm: {
		readonly action: SignalAction;
		readonly choice: Choice;
		readonly target: SendTarget;
		/** A drill (d): a save whose checkpoint is timed and judged. */
		readonly drill?: boolean;
	} | null;
	/** What the last send did, rank by rank. */
	readonly result: TextView | null;
	/** What came of its save (the checkpoints pane's status line; under the result box on the list of nodes). */
	readonly saveStatus: SaveStatus | null;
	/** Epoch ms of the send saveStatus follows: a late answer about an earlier send is not news. */
	readonly saveFor: number | null;
	/** The checkpoint is still waited for: once the job's ranks have exited, its absence is no longer news. */
	readonly awaitingSave: boolean;
	/** The last send was a drill (d) of this job: what came of it is said as one, with the job's readiness. */
	readonly drillJob?: string | null;
	/** After an emergency across nodes: each node's ranks, exited (how), still running, or its node lost. */
	readonly exits: readonly string[];
	/** Why a key had nothing to act on, shown on the key bar until `until` (epoch ms). */
	readonly notice: {readonly text: string; readonly until: number} | null;
}

export const NO_SEND: SendFlowState = {
	confirm: null,
	result: null,
	saveStatus: null,
	saveFor: null,
	awaitingSave: false,
	exits: [],
	notice: null,
};

/**
 * The send a confirm box asked for. One node's ranks: the job and each pid are looked up in the latest scan, and a
 * pid now held by another process (another start time) is gone. Across nodes: each node's share through its agent.
 */
export type SendEffect =
	| {
			readonly kind: 'send';
			readonly action: SignalAction;
			readonly job: string;
			readonly identities: readonly ProcessIdentity[];
	  }
	| {readonly kind: 'send'; readonly action: SignalAction; readonly target: FleetTarget};

/** The effect of `y` on the box's target. */
export function sendEffect(action: SignalAction, target: SendTarget): SendEffect {
	return acrossNodes(target)
		? {kind: 'send', action, target}
		: {kind: 'send', action, job: target.job, identities: target.identities};
}

export type SendEvent =
	/** A send ran: each rank's outcome (with its node, through the agents), and whether its save is watched. */
	| {
			readonly type: 'sent';
			readonly action: SignalAction;
			readonly signal: SignalName;
			readonly job: string;
			readonly results: readonly (SendResult | NodeSendResult)[];
			/** Epoch ms. */
			readonly sentAt: number;
			readonly watch: SaveWatch;
	  }
	/** A send that found nothing to send to (the job, or every chosen rank of it, is gone; a node of it is off). */
	| {
			readonly type: 'send-skipped';
			readonly action: SignalAction;
			readonly signal: SignalName;
			readonly job: string;
			/** Why nothing was sent. */
			readonly lines: readonly string[];
	  }
	/**
	 * What the save watch saw for the send at `sentAt`: the checkpoint (attributed when of the kind asked for; else
	 * `note` says why it may not be the one), or none within the timeout. `node`: where it was looked for, across nodes.
	 */
	| ({readonly type: 'save-finished'; readonly sentAt: number; readonly node?: string} & SaveFinished)
	/** The one node's job an emergency signal went to ended before its checkpoint was seen. */
	| {
			readonly type: 'job-exited';
			readonly sentAt: number;
			readonly signal: SignalName;
			readonly job: string;
			readonly exit: ExitStatus | null;
	  }
	/** After an emergency across nodes: what each node's ranks did. */
	| {
			readonly type: 'node-exits';
			readonly action: SignalAction;
			readonly signal: SignalName;
			readonly job: string;
			readonly sentAt: number;
			readonly report: ExitReport;
			readonly timeoutS: number;
	  };

/** `sending SIGUSR1 (save) to job rdzv:10.0.0.1:29500…`: the result box while the send runs (the agents answer). */
function sendingView(action: SignalAction, signal: SignalName, target: SendTarget): TextView {
	const through = acrossNodes(target) ? " through its nodes' agents" : '';
	return {title: `sending ${signalWord(action, signal)} to job ${printable(target.job)}${through}…`, lines: []};
}

/** `y` on the box: it closes on the result box, filled in when the send has run; the last send's status is over. */
export function confirmed(state: SendFlowState, signal: SignalName): SendFlowState {
	if (!state.confirm) return state;
	const {action, target, drill = false} = state.confirm;
	const drillJob = drill ? target.job : null;
	return {...state, confirm: null, result: sendingView(action, signal, target), saveStatus: null, exits: [], drillJob};
}

const resultLine = (r: SendResult | NodeSendResult): string =>
	'node' in r ? `${r.node} ${outcomeLine(r)}` : outcomeLine(r);

/** A send's answer, its save's, or what came of the job after an emergency. */
export function onSendEvent(state: SendFlowState, event: SendEvent): SendFlowState {
	switch (event.type) {
		case 'sent': {
			const {action, signal, job, results} = event;
			const result = {title: outcomeTitle(action, signal, job, results), lines: results.map(resultLine)};
			// Nothing sent (every rank refused): no status, nothing to wait for.
			if (!results.some(r => r.outcome === 'sent'))
				return {...state, result, saveStatus: null, awaitingSave: false, exits: []};
			return {
				...state,
				result,
				saveStatus: sentStatus(signal, job, event.sentAt, event.watch),
				saveFor: event.sentAt,
				awaitingSave: event.watch === 'watching',
				exits: [],
			};
		}
		case 'send-skipped':
			return {
				...state,
				saveStatus: null,
				awaitingSave: false,
				exits: [],
				result: {
					title: `${signalWord(event.action, event.signal)} to job ${printable(event.job)}: nothing sent`,
					lines: event.lines,
				},
			};
		case 'save-finished': {
			// After the job's ranks exited, only a checkpoint is news: "none within the timeout" says less than the exit.
			if (state.saveFor !== event.sentAt || (event.checkpoint === null && !state.awaitingSave)) return state;
			const status = state.drillJob ? drillStatus(event, state.drillJob) : saveFinishedStatus(event);
			const where = event.checkpoint !== null && event.node ? ` on ${event.node}` : '';
			return {...state, saveStatus: {...status, text: `${status.text}${where}`}, awaitingSave: false};
		}
		case 'job-exited':
			return state.saveFor === event.sentAt
				? {...state, awaitingSave: false, saveStatus: jobExitedStatus(event.job, event.signal, event.exit)}
				: state;
		case 'node-exits':
			return state.saveFor === event.sentAt ? onExits(state, event) : state;
	}
}

/** Each node's line; once every node's ranks exited with the checkpoint still unseen, the status says so as on one node. */
function onExits(state: SendFlowState, event: Extract<SendEvent, {type: 'node-exits'}>): SendFlowState {
	const {report, signal} = event;
	const exits = report.nodes.map(node =>
		nodeExitLine(node, signal, {timedOut: report.timedOut, timeoutS: event.timeoutS}),
	);
	const allExited = report.nodes.length > 0 && report.nodes.every(node => exitState(node) === 'exited');
	if (!allExited || !state.awaitingSave) return {...state, exits};
	return {
		...state,
		exits,
		awaitingSave: false,
		saveStatus: jobExitedStatus(event.job, signal, jobExitStatus(report.nodes)),
	};
}
