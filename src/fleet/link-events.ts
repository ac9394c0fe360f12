import type {JobEvent} from '../core/types.js';
import type {LinkState, NodeState} from './node-state.js';
import {linkWords} from './node-words.js';

// The nodes' link changes as events for the alerts pane: a node lost, gone stale, or connected again after either
// (a first connection and a reconnect attempt are not news: the node's row shows them). Bounded.

/** Link changes kept for the alerts pane. */
const LINK_EVENTS_KEPT = 50;

export class LinkEvents {
	readonly #states = new Map<string, LinkState>();
	#lastStates = '';
	#events: readonly JobEvent[] = [];

	/** The changes kept, oldest first. */
	get events(): readonly JobEvent[] {
		return this.#events;
	}

	/** Whether any node's link state changed since the last call (then its news is recorded): the views are told. */
	changed(nodes: readonly NodeState[], now: number): boolean {
		const states = nodes.map(node => `${node.name}=${node.state(now)}`).join(',');
		if (states === this.#lastStates) return false;
		this.#lastStates = states;
		this.#record(nodes, now);
		return true;
	}

	/** An event for each node whose state changed in a way worth saying. */
	#record(nodes: readonly NodeState[], now: number): void {
		const events: JobEvent[] = [];
		for (const node of nodes) {
			const state = node.state(now);
			// Reconnecting is the way back from lost, not news of its own: the state before it is kept.
			if (state === 'connecting') continue;
			const was = this.#states.get(node.name);
			this.#states.set(node.name, state);
			if (state === was || (state === 'connected' && was === undefined)) continue;
			const level = state === 'lost' ? 'critical' : state === 'stale' ? 'warn' : 'ok';
			const text = `node ${node.name} ${linkWords(node.view(now), now)}`;
			events.push({time: now, kind: 'node-link', job: null, rank: null, pid: null, level, text, node: node.name});
		}
		if (events.length > 0) this.#events = [...this.#events, ...events].slice(-LINK_EVENTS_KEPT);
	}
}
