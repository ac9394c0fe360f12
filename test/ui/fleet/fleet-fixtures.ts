import {PROTOCOL, type SnapshotMessage} from '../../../src/agent/protocol.js';
import {wireSnapshot} from '../../../src/agent/wire-snapshot.js';
import type {Snapshot} from '../../../src/core/types.js';
import type {FleetView} from '../../../src/fleet/fleet.js';
import {NodeState, type NodeView} from '../../../src/fleet/node-state.js';
import type {FleetSource} from '../../../src/ui/fleet/fleet-view-store.js';
import {NOW} from '../fixtures.js';

// The fleet as the many-node screen reads it, driven by the test: real NodeStates fed real wire messages (what an
// agent sends, made by wireSnapshot from a Snapshot), on a clock the test sets. Nothing runs by itself.

/** A node's snapshot: the parts a test gives, the rest empty. */
export function snapshotOf(host: string, time: number, fields: Partial<Snapshot> = {}): Snapshot {
	return {
		time,
		host,
		tick: 1,
		memory: null,
		memoryError: null,
		gpu: {status: 'absent', reason: 'nvidia-smi not found on PATH'},
		gpuProcesses: {processes: [], sampledAt: null, error: null},
		ranks: null,
		ranksError: null,
		checkpoints: null,
		metrics: {},
		newAlerts: [],
		recentAlerts: [],
		events: [],
		recentEvents: [],
		...fields,
	};
}

interface Node {
	readonly state: NodeState;
	last: Snapshot | null;
}

/** A connected node whose latest snapshot carries `fields`: what a merge over the fleet's nodes reads. */
export function connectedNode(name: string, time: number, fields: Partial<Snapshot>): NodeView {
	return {
		name,
		address: null,
		state: 'connected',
		snapshot: snapshotOf(name, time, fields),
		lastMessageAt: time,
		skewMs: 0,
		garbage: 0,
		lastGarbage: null,
		problem: null,
		reconnects: 0,
		hello: null,
	};
}

export class FakeFleet implements FleetSource {
	now = NOW;
	readonly #nodes = new Map<string, Node>();
	readonly #snapshotListeners = new Set<(node: string, snapshot: Snapshot) => void>();
	readonly #viewListeners = new Set<(view: FleetView) => void>();

	readonly intervalMs: number;

	/**
	 * Nodes in this order, each connecting; `intervalMs` their sampling interval (stale after 3 of them); `addresses`
	 * where each is reached (cluster.yaml's `host`), by name.
	 */
	constructor(names: readonly string[], intervalMs = 1000, addresses: Readonly<Record<string, string>> = {}) {
		this.intervalMs = intervalMs;
		for (const name of names) this.#node(name, addresses[name]).state.connecting();
	}

	/** The agent's hello: connected. */
	hello(name: string): this {
		this.#node(name).state.hello(
			{
				kind: 'hello',
				protocol: PROTOCOL,
				host: name,
				version: '0.1.0',
				pid: 4000 + this.#nodes.size,
				clock: this.now,
				interval_ms: this.intervalMs,
				run_dir: null,
			},
			this.now,
		);
		return this.#emit();
	}

	/** A snapshot from `name`'s agent, written in its clock at `time` (default: ours, now), received now. */
	send(name: string, fields: Partial<Snapshot> = {}, time = this.now): this {
		const node = this.#node(name);
		const snapshot = snapshotOf(name, time, fields);
		const message: SnapshotMessage = {kind: 'snapshot', host: name, snapshot: wireSnapshot(snapshot, node.last)};
		node.last = snapshot;
		const full = node.state.snapshot(message, this.now);
		for (const listener of this.#snapshotListeners) listener(name, full);
		return this.#emit();
	}

	/** Its connection ended. */
	lose(name: string, why: string): this {
		this.#node(name).state.lost(why);
		return this.#emit();
	}

	/** A new connection is being made (after a loss): connecting until its hello. */
	reconnect(name: string): this {
		this.#node(name).state.connecting();
		return this.#emit();
	}

	/** A line from its agent that was not a message (a login banner). */
	garbage(name: string, line: string): this {
		this.#node(name).state.garbage(line);
		return this.#emit();
	}

	/** The clock moves on (a silent node goes stale). */
	at(time: number): this {
		this.now = time;
		return this.#emit();
	}

	view(name: string): NodeView {
		return this.#node(name).state.view(this.now);
	}

	current(): FleetView {
		return {time: this.now, nodes: [...this.#nodes.values()].map(node => node.state.view(this.now))};
	}

	subscribe(listener: (view: FleetView) => void): () => void {
		this.#viewListeners.add(listener);
		return () => this.#viewListeners.delete(listener);
	}

	onSnapshot(listener: (node: string, snapshot: Snapshot) => void): () => void {
		this.#snapshotListeners.add(listener);
		return () => this.#snapshotListeners.delete(listener);
	}

	#node(name: string, address?: string): Node {
		let node = this.#nodes.get(name);
		if (!node) {
			node = {state: new NodeState(name, this.intervalMs, address ?? null), last: null};
			this.#nodes.set(name, node);
		}
		return node;
	}

	#emit(): this {
		const view = this.current();
		for (const listener of this.#viewListeners) listener(view);
		return this;
	}
}
