import type {SaveExpectation, SaveOutcome} from '../../checkpoints/save-attribution.js';
import type {Settings} from '../../config/schema.js';
import type {Fleet} from '../../fleet/fleet.js';
import {type NodeExitWatch, watchNodeExits} from '../../fleet/node-exit-watch.js';
import {awaitNodeSave} from '../../fleet/node-save.js';
import {type NodeSend, type NodeSendResult, sendAcrossNodes} from '../../fleet/send-across.js';
import type {SignalName} from '../../ranks/signals.js';
import type {SignalAction} from '../../session/actions.js';

// What the list of nodes may do to one job on every node it runs on (s and e there), as SessionActions is what a
// node's own view may do: each node's share goes through its own agent, and the save is confirmed by the new
// checkpoint in the snapshots of a node that watches the run dir; an emergency's exits in every node's snapshots.

export interface FleetJobActions {
	signalOf(action: SignalAction): SignalName;
	/** Sends to every node's share at once, through each node's agent; every rank's outcome with its node. */
	send(signal: SignalName, sends: readonly NodeSend[], expect: SaveExpectation): Promise<NodeSendResult[]>;
	/** The checkpoint the send at `sinceMs` asked for, as `node`'s snapshots show it, or none in the timeout. */
	awaitSave(node: string, sinceMs: number, expect: SaveExpectation): Promise<SaveOutcome>;
	/** Follows each node's share of a send made at `sinceMs` until its ranks have exited (or the node is lost). */
	watchExits(sends: readonly NodeSend[], sinceMs: number): NodeExitWatch;
	readonly timeoutS: number;
}

export function fleetJobActions(fleet: Fleet, settings: Settings): FleetJobActions {
	return {
		signalOf: action => (action === 'save' ? settings.saveSignal : settings.emergencySignal),
		send: (signal, sends, expect) => sendAcrossNodes(fleet, signal, sends, expect),
		awaitSave: (node, sinceMs, expect) => awaitNodeSave(fleet, node, sinceMs, expect, settings.timeout * 1000),
		watchExits: (sends, sinceMs) => watchNodeExits(fleet, sends, sinceMs, settings.timeout * 1000),
		timeoutS: settings.timeout,
	};
}
