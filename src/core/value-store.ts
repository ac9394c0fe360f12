// One value that changes now and then, and whoever shows it is told when it does: the memory log's
// trouble, for one. Views subscribe instead of polling, so a change shows at once and only then.

export type ValueListener<T> = (value: T) => void;

export class ValueStore<T> {
	#value: T;
	readonly #listeners = new Set<ValueListener<T>>();

	constructor(initial: T) {
		this.#value = initial;
	}

	get(): T {
		return this.#value;
	}

	/** Listeners hear of a change only: setting the same value again tells nobody. */
	set(value: T): void {
		if (Object.is(value, this.#value)) return;
		this.#value = value;
		for (const listener of this.#listeners) listener(value);
	}

	subscribe(listener: ValueListener<T>): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}
}
