// How many connections are being made at once. A connection is "being made" from its spawn (an ssh in its
// handshake, an srun waiting for its step) until its agent's hello, or its end; the rest wait their turn, first come
// first served. Connected agents do not count: a cluster's nodes all stay connected.

/**
 * 32 is pdsh's default fan-out, for the same reason: a 3000-node cluster.yaml spawned 3000 ssh processes at once
 * (50 a second, the event loop busy forking, a SIGTERM answered 7 s late), each a process and a key exchange.
 */
const MAX_CONNECTING = 32;

export class ConnectSlots<Link> {
	readonly #max: number;
	readonly #making = new Set<Link>();
	readonly #waiting: Link[] = [];

	constructor(max = MAX_CONNECTING) {
		this.#max = max;
	}

	/** True: `link` may connect now (it holds a slot until done); false: it waits, and done() hands it one later. */
	take(link: Link): boolean {
		if (this.#making.size < this.#max) {
			this.#making.add(link);
			return true;
		}
		if (!this.#waiting.includes(link)) this.#waiting.push(link);
		return false;
	}

	/** Whether `link` is being made (started, no hello yet). */
	making(link: Link): boolean {
		return this.#making.has(link);
	}

	/** `link` said hello or ended: its slot goes to the next waiting link, returned for the caller to start. */
	done(link: Link): Link | null {
		if (!this.#making.delete(link)) return null;
		const next = this.#waiting.shift();
		if (next === undefined) return null;
		this.#making.add(next);
		return next;
	}

	/** Nothing more is started (closing). */
	clear(): void {
		this.#waiting.length = 0;
	}
}
