/**
 * A fixed-capacity FIFO: the Monitor's per-metric history. Pushing past capacity drops the oldest
 * value, so a monitor left open for days uses the same memory as one started a minute ago.
 */
export class RingBuffer<T> {
	readonly #items: (T | undefined)[];
	#start = 0;
	#length = 0;
	readonly capacity: number;

	constructor(capacity: number) {
		if (!Number.isInteger(capacity) || capacity < 1) {
			throw new RangeError(`RingBuffer capacity must be a positive integer, got ${capacity}`);
		}
		this.capacity = capacity;
		this.#items = new Array<T | undefined>(capacity);
	}

	get length(): number {
		return this.#length;
	}

	push(value: T): void {
		const end = (this.#start + this.#length) % this.capacity;
		this.#items[end] = value;
		if (this.#length < this.capacity) {
			this.#length++;
		} else {
			this.#start = (this.#start + 1) % this.capacity;
		}
	}

	/** Oldest first; with `limit`, only the newest `limit` of them. */
	toArray(limit = this.#length): T[] {
		const out: T[] = [];
		for (let i = Math.max(0, this.#length - limit); i < this.#length; i++) {
			out.push(this.#items[(this.#start + i) % this.capacity] as T);
		}
		return out;
	}

	/** The `index`-th oldest item (0 = the oldest), read in place: no copy of the ring. */
	at(index: number): T | undefined {
		if (index < 0 || index >= this.#length) return undefined;
		return this.#items[(this.#start + index) % this.capacity];
	}

	last(): T | undefined {
		return this.#length === 0 ? undefined : this.#items[(this.#start + this.#length - 1) % this.capacity];
	}
}
