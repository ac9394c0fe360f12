import type {NodeSendResult} from '../../fleet/send-across.js';
import {outcomeLine} from '../../ranks/preview.js';
import type {SignalName} from '../../ranks/signals.js';
import type {SignalAction} from '../../session/actions.js';
import type {SaveStatus} from '../panes/CheckpointsPane.js';
import {
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
// under it, what came of the save. Pure; fleet-state.ts routes its keys and events here.

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
	/** Why s or e had nothing to act on, shown on the key bar until `until` (epoch ms). */
	readonly notice: {readonly text: string; readonly until: number} | null;
}

export const NO_SIGNAL: FleetSignalState = {confirm: null, result: null, saveStatus: null, saveFor: null, notice: null};

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
	| ({readonly type: 'save-finished'; readonly sentAt: number} & SaveFinished);

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

/** A send's answer or its save's: the result box's lines and the status under them. */
export function onSendEvent(state: FleetSignalState, event: FleetSendEvent): FleetSignalState {
	switch (event.type) {
		case 'sent': {
			const {action, signal, job, results} = event;
			const result = {
				title: outcomeTitle(action, signal, job, results),
				lines: results.map(r => `${r.node} ${outcomeLine(r)}`),
			};
			if (!results.some(r => r.outcome === 'sent')) return {...state, result, saveStatus: null};
			return {...state, result, saveStatus: sentStatus(signal, job, event.sentAt, event.watch), saveFor: event.sentAt};
		}
		case 'send-skipped':
			return {
				...state,
				saveStatus: null,
				result: {
					title: `${signalWord(event.action, event.signal)} to job ${event.job}: nothing sent`,
					lines: event.lines,
				},
			};
		case 'save-finished':
			return state.saveFor === event.sentAt ? {...state, saveStatus: saveFinishedStatus(event)} : state;
	}
}
