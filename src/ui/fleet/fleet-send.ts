import type {FleetView} from '../../fleet/fleet.js';
import type {SignalAction} from '../../session/actions.js';
import type {ExitReport} from '../../fleet/node-exit-watch.js';
import {type SaveWatch, saveFinished} from '../send-status.js';
import {saveNode} from '../confirm-text.js';
import type {FleetJobActions} from './fleet-job-actions.js';
import {notConnected, targetParts, WHOLE_JOB_WHY} from './fleet-job-target.js';
import type {SendEvent} from '../send-flow.js';
import type {FleetTarget} from './fleet-job-target.js';

// The send the confirm box on the nodes asked for, run against the fleet as it is now (not as it was when the box
// opened): every node's share through its agent at once, then the save watched in a node's snapshots and, after an
// emergency, every node's ranks followed until they exit. Its results come back to the reducer as events.

export async function runFleetSend(
	effect: {readonly action: SignalAction; readonly target: FleetTarget},
	view: () => FleetView,
	actions: FleetJobActions,
	dispatch: (event: SendEvent) => void,
): Promise<void> {
	const signal = actions.signalOf(effect.action);
	const base = {action: effect.action, signal, job: effect.target.job};
	const {nodes, time} = view();
	const parts = targetParts(nodes, effect.target);
	if (parts.length === 0) {
		dispatch({
			...base,
			type: 'send-skipped',
			lines: [`job ${effect.target.job} is gone from every node: nothing was sent`],
		});
		return;
	}
	// All of the job's nodes or none: checked again now, a node may have been lost since the box opened.
	const off = notConnected(parts, time);
	if (off !== null) {
		dispatch({...base, type: 'send-skipped', lines: [`${off}: nothing was sent`, ...WHOLE_JOB_WHY]});
		return;
	}
	const sends = parts.map(part => ({node: part.node.name, job: part.job.id, ranks: part.job.ranks}));
	const sentAt = Date.now();
	// An emergency ends the job: its ranks are followed on every node from before the send, so one that exits before
	// the other nodes' agents have replied is not missed.
	const exits = effect.action === 'emergency' ? actions.watchExits(sends, sentAt) : null;
	const expect = effect.action === 'save' ? 'manual' : 'emergency';
	const results = await actions.send(signal, sends, expect);
	const watched = saveNode(parts);
	const watch: SaveWatch = watched ? 'watching' : 'no-run-dir';
	dispatch({...base, type: 'sent', results, sentAt, watch});
	if (!results.some(r => r.outcome === 'sent')) {
		exits?.stop();
		return;
	}
	if (exits) {
		const reached = results.filter(r => r.outcome === 'sent');
		const told = (report: ExitReport) =>
			dispatch({...base, type: 'node-exits', sentAt, report, timeoutS: actions.timeoutS});
		void exits.settle(reached, told).then(told);
	}
	if (!watched) return;
	const outcome = await actions.awaitSave(watched.node.name, sentAt, expect);
	dispatch({...saveFinished(signal, sentAt, outcome, actions.timeoutS), node: watched.node.name});
}
