import type {HelloMessage, SnapshotMessage} from '../agent/protocol.js';
import {fullSnapshot} from '../agent/wire-snapshot.js';
import {keepRecent} from '../core/event-places.js';
import type {Snapshot} from '../core/types.js';

// What the viewer knows of one node: the agent's hello, its latest snapshot rebuilt from the wire (slow parts
// carried over), the node's own recent alerts and events, and how fresh all that is. The link's state is judged
// against a clock, not stored: silence is what makes a node stale, and silence sends no message to react to.

export type LinkState = 'connecting' | 'connected' | 'stale' | 'lost';

/** A node is stale after this many of its intervals without a message. */
export const STALE_AFTER_INTERVALS = 3;
/** The recent alerts and events kept per node (as the Monitor keeps its own). */
const RECENT_LIMIT = 50;
/** A clock this far off ours is worth saying: beyond what a message's own latency explains. */
export const SKEW_NOTED_MS = 2000;

export interface NodeView {
	/** The node's name (cluster.yaml's `name`, a --hosts entry, a scheduler's node name). */
	readonly name: string;
	/** Where it is reached (cluster.yaml's or --hosts' `host`, `local`); null where the name is all there is (srun). */
	readonly address: string | null;
	readonly state: LinkState;
	readonly snapshot: Snapshot | null;
	/** Epoch ms (ours) of the last message; null before the first. */
	readonly lastMessageAt: number | null;
	/** The node's clock minus ours, from its latest snapshot; null before one. */
	readonly skewMs: number | null;
	/** Lines from its agent that were not messages, and the last of them. */
	readonly garbage: number;
	readonly lastGarbage: string | null;
	/** Why it is lost (or was, last); errors the agent reported; null when nothing went wrong. */
	readonly problem: string | null;
	/** Connections made after the first. */
	readonly reconnects: number;
	readonly hello: HelloMessage | null;
}

export class NodeState {
	readonly name: string;
	readonly address: string | null;
	#hello: HelloMessage | null = null;
	#snapshot: Snapshot | null = null;
	#lastMessageAt: number | null = null;
	#skewMs: number | null = null;
	#garbage = 0;
	#lastGarbage: string | null = null;
	#problem: string | null = null;
	#reconnects = -1;
	#lost = false;
	readonly #defaultIntervalMs: number;

	constructor(name: string, defaultIntervalMs: number, address: string | null = null) {
		this.name = name;
		this.address = address;
		this.#defaultIntervalMs = defaultIntervalMs;
	}

	/** A new connection is being made: connecting until its hello. */
	connecting(): void {
		this.#reconnects += 1;
		this.#lost = false;
		this.#hello = null;
	}

	hello(message: HelloMessage, now: number): void {
		this.#hello = message;
		this.#lastMessageAt = now;
		this.#lost = false;
		this.#problem = null;
	}

	snapshot(message: SnapshotMessage, now: number): Snapshot {
		const wire = message.snapshot;
		const previous = this.#snapshot;
		// A new list only when something came (most snapshots bring nothing): views memoise on the same array.
		const appended = <T>(kept: readonly T[] | undefined, added: readonly T[]): readonly T[] =>
			added.length === 0 ? (kept ?? []) : [...(kept ?? []), ...added].slice(-RECENT_LIMIT);
		const snapshot = fullSnapshot(wire, previous, {
			recentAlerts: appended(previous?.recentAlerts, wire.newAlerts),
			// Per place, as the Monitor keeps its own: the node's saves never push out its problems.
			recentEvents:
				wire.events.length === 0
					? (previous?.recentEvents ?? [])
					: keepRecent([...(previous?.recentEvents ?? []), ...wire.events], RECENT_LIMIT),
		});
		this.#snapshot = snapshot;
		this.#lastMessageAt = now;
		this.#skewMs = wire.time - now;
		return snapshot;
	}

	/** Anything else from the agent (a reply, an error it reports) still shows it is alive. */
	heard(now: number, problem: string | null = null): void {
		this.#lastMessageAt = now;
		if (problem !== null) this.#problem = problem;
	}

	garbage(line: string): void {
		this.#garbage += 1;
		this.#lastGarbage = line;
	}

	lost(why: string): void {
		this.#lost = true;
		this.#problem = why;
	}

	get intervalMs(): number {
		return this.#hello?.interval_ms ?? this.#defaultIntervalMs;
	}

	/** connecting (no hello yet), connected, stale (silent for 3 intervals), or lost (its connection ended). */
	state(now: number): LinkState {
		if (this.#lost) return 'lost';
		if (this.#hello === null) return 'connecting';
		const silentMs = now - (this.#lastMessageAt ?? now);
		return silentMs > STALE_AFTER_INTERVALS * this.intervalMs ? 'stale' : 'connected';
	}

	/** Milliseconds since the last message, or null before one. */
	silentMs(now: number): number | null {
		return this.#lastMessageAt === null ? null : now - this.#lastMessageAt;
	}

	view(now: number): NodeView {
		return {
			name: this.name,
			address: this.address,
			state: this.state(now),
			snapshot: this.#snapshot,
			lastMessageAt: this.#lastMessageAt,
			skewMs: this.#skewMs,
			garbage: this.#garbage,
			lastGarbage: this.#lastGarbage,
			problem: this.#problem,
			reconnects: Math.max(0, this.#reconnects),
			hello: this.#hello,
		};
	}
}
