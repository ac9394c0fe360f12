import type {ExitReport} from '../../fleet/node-exit-watch.js';
import {jobExitStatus, nodeExitLine} from '../../fleet/node-exit-words.js';
import {exitState} from '../../fleet/node-exits.js';
import type {NodeSendResult} from '../../fleet/send-across.js';
import {outcomeLine} from '../../ranks/preview.js';
import type {SignalName} from '../../ranks/signals.js';
import type {SignalAction} from '../../session/actions.js';
import type {SaveStatus} from '../panes/CheckpointsPane.js';
import {
	jobExitedStatus,
	outcomeTitle,
	type SaveFinished,
	type SaveWatch,
	saveFinishedStatus,
	sentStatus,
	signalWord,
} from '../send-status.js';
import type {Choice, TextView} from '../state.js';
import {type FleetTarget, pickFleetJob} from './fleet-job-target.js';
import type {NodeView} from '../../fleet/node-state.js';

// s and e on the list of nodes, as state changes: the confirm box on the cursor node's job (or the notice that says
// why there is none), y to send it through every node's agent, the result box rank by rank with each one's node and,
// under it, what came of the save and, after an emergency, of each node's ranks. Pure; fleet-state.ts routes its keys
// and events here.

const NOTICE_MS = 5000;

/** The part of the many-node screen's state that s and e use. */
export interface FleetSignalState {
	/** The box's action, highlighted button (Cancel first) and target, fixed when it opened. */
	readonly confirm: {readonly action: SignalAction; readonly choice: Choice; readonly target: FleetTarget} | null;
	/** What the last send did, rank by rank; its save's status under it. */
	readonly result: TextView | null;
	readonly saveStatus: SaveStatus | null;
	/** Epoch ms of the send saveStatus follows: a late answer about an earlier send is not news. */
	readonly saveFor: number | null;
	/** The checkpoint is still waited for: once every node's ranks have exited, its absence is no longer news. */
	readonly awaitingSave: boolean;
	/** After an emergency: each node's ranks, exited (how), still running, or its node lost. */
	readonly exits: readonly string[];
	/** Why s or e had nothing to act on, shown on the key bar until `until` (epoch ms). */
	readonly notice: {readonly text: string; readonly until: number} | null;
}

export const NO_SIGNAL: FleetSignalState = {
	confirm: null,
	result: null,
	saveStatus: null,
	saveFor: null,
	awaitingSave: false,
	exits: [],
	notice: null,
};

export type FleetSendEffect = {readonly kind: 'send'; readonly action: SignalAction; readonly target: FleetTarget};

export type FleetSendEvent =
	| {
			readonly type: 'sent';
			readonly action: SignalAction;
			readonly signal: SignalName;
			readonly job: string;
			readonly results: readonly NodeSendResult[];
			readonly sentAt: number;
			readonly watch: SaveWatch;
	  }
	| {
			readonly type: 'send-skipped';
			readonly action: SignalAction;
			readonly signal: SignalName;
			readonly job: string;
			/** Why nothing was sent. */
			readonly lines: readonly string[];
	  }
	| {
			readonly type: 'node-exits';
			readonly action: SignalAction;
			readonly signal: SignalName;
			readonly job: string;
			readonly sentAt: number;
			readonly report: ExitReport;
			readonly timeoutS: number;
	  }
	/** `node`: where the checkpoint was looked for (the node whose agent watches the run dir). */
	| ({readonly type: 'save-finished'; readonly sentAt: number; readonly node?: string} & SaveFinished);

/** s or e on the nodes: the box on the cursor node's job, or the notice saying why there is none. */
export function openConfirm(
	action: SignalAction,
	nodes: readonly NodeView[],
	cursorNode: string | undefined,
	now: number,
): Pick<FleetSignalState, 'confirm' | 'notice'> {
	const picked = pickFleetJob(nodes, cursorNode);
	if ('why' in picked) return {confirm: null, notice: {text: picked.why, until: now + NOTICE_MS}};
	return {confirm: {action, choice: 'cancel', target: picked.target}, notice: null};
}

/** `sending SIGUSR1 (save) to job slurm:998.0…`: the result box while the agents answer. */
export function sendingView(action: SignalAction, signal: SignalName, job: string): TextView {
	return {title: `sending ${signalWord(action, signal)} to job ${job} through its nodes' agents…`, lines: []};
}

/** A send's answer, its save's, or (after an emergency) its ranks' on each node: the result box and the lines under it. */
export function onSendEvent(state: FleetSignalState, event: FleetSendEvent): FleetSignalState {
	switch (event.type) {
		case 'sent': {
			const {action, signal, job, results} = event;
			const result = {
				title: outcomeTitle(action, signal, job, results),
				lines: results.map(r => `${r.node} ${outcomeLine(r)}`),
			};
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
					title: `${signalWord(event.action, event.signal)} to job ${event.job}: nothing sent`,
					lines: event.lines,
				},
			};
		case 'save-finished': {
			// After every node's ranks exited, only a checkpoint is news: "none within the timeout" says less (one node alike).
			if (state.saveFor !== event.sentAt || (event.checkpoint === null && !state.awaitingSave)) return state;
			const status = saveFinishedStatus(event);
			const where = event.checkpoint !== null && event.node ? ` on ${event.node}` : '';
			return {...state, saveStatus: {...status, text: `${status.text}${where}`}, awaitingSave: false};
		}
		case 'node-exits':
			return state.saveFor === event.sentAt ? onExits(state, event) : state;
	}
}

/** Each node's line; once every node's ranks exited with the checkpoint still unseen, the status says so as on one node. */
function onExits(state: FleetSignalState, event: Extract<FleetSendEvent, {type: 'node-exits'}>): FleetSignalState {
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
