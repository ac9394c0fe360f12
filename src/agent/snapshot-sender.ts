import type {Alert, JobEvent, Snapshot} from '../core/types.js';
import type {SnapshotMessage} from './protocol.js';
import {wireSnapshot} from './wire-snapshot.js';

// Which snapshots go out, and what each carries. A reader that falls behind (a slow ssh link, a viewer busy for a
// moment) must not make the agent queue a snapshot a second in memory: while the last message has not been taken,
// the next snapshots are held back. Their memory and GPU readings are superseded by the next one sent anyway, the
// slow parts are compared with what was last SENT (so an omitted part is one the reader really has), and their
// events and alerts, which happen once, ride on the next message sent.

/** Events and alerts held for a reader that is behind; beyond this the oldest go (it is being given up on). */
const HELD_MAX = 1000;

export class SnapshotSender {
	readonly #host: string;
	#lastSent: Snapshot | null = null;
	#heldEvents: JobEvent[] = [];
	#heldAlerts: Alert[] = [];
	#skipped = 0;

	constructor(host: string) {
		this.#host = host;
	}

	/** Snapshots held back so far because the reader was behind. */
	get skipped(): number {
		return this.#skipped;
	}

	/**
	 * The message for `snapshot`, or null when `behind` (the reader has not taken the previous message yet): its
	 * events and new alerts then wait for the next message.
	 */
	next(snapshot: Snapshot, behind: boolean): SnapshotMessage | null {
		if (behind) {
			this.#skipped += 1;
			this.#heldEvents = [...this.#heldEvents, ...snapshot.events].slice(-HELD_MAX);
			this.#heldAlerts = [...this.#heldAlerts, ...snapshot.newAlerts].slice(-HELD_MAX);
			return null;
		}
		const wire = wireSnapshot(snapshot, this.#lastSent);
		this.#lastSent = snapshot;
		if (this.#heldEvents.length === 0 && this.#heldAlerts.length === 0)
			return {kind: 'snapshot', host: this.#host, snapshot: wire};
		const message: SnapshotMessage = {
			kind: 'snapshot',
			host: this.#host,
			snapshot: {
				...wire,
				events: [...this.#heldEvents, ...wire.events],
				newAlerts: [...this.#heldAlerts, ...wire.newAlerts],
			},
		};
		this.#heldEvents = [];
		this.#heldAlerts = [];
		return message;
	}
}
