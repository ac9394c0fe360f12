// A per-record column of numbers that costs nothing while every record has the same value: a
// log's interval and host rarely change, and a million-record log would otherwise hold two
// million-entry arrays of one number.

/** Read side: the value of record i. */
export interface Column {
	readonly length: number;
	at(i: number): number;
}

type Values = Float32Array | Int32Array;

class UniformColumn implements Column {
	readonly length: number;
	readonly value: number;

	constructor(length: number, value: number) {
		this.length = length;
		this.value = value;
	}

	at(): number {
		return this.value;
	}
}

class ArrayColumn implements Column {
	readonly #values: Values;

	constructor(values: Values) {
		this.#values = values;
	}

	get length(): number {
		return this.#values.length;
	}

	at(i: number): number {
		return this.#values[i]!;
	}
}

const same = (a: number, b: number): boolean => a === b || (Number.isNaN(a) && Number.isNaN(b));

export class ColumnBuilder {
	readonly #make: (n: number) => Values;
	#count = 0;
	#first = Number.NaN;
	/** null while every value equals #first. */
	#values: Values | null = null;
	#capacity = 1024;
	/** One value stored as the array type stores it: reused, not allocated per push. */
	readonly #one: Values;

	/** `make` allocates the array once values differ: Float32Array or Int32Array (values are stored as it stores them). */
	constructor(make: (n: number) => Values) {
		this.#make = make;
		this.#one = make(1);
	}

	/** Room for `capacity` values without growing. */
	reserve(capacity: number): void {
		if (capacity <= this.#capacity) return;
		this.#capacity = capacity;
		if (this.#values) this.#values = this.#copy(this.#values, capacity);
	}

	push(value: number): void {
		const i = this.#count++;
		if (this.#values === null) {
			// Stored as the array would store it, so the column reads the same either way.
			this.#one[0] = value;
			if (i === 0) {
				this.#first = this.#one[0]!;
				return;
			}
			if (same(this.#first, this.#one[0]!)) return;
			this.#capacity = Math.max(this.#capacity, i + 1);
			this.#values = this.#make(this.#capacity).fill(this.#first, 0, i);
		}
		if (i >= this.#values.length) {
			this.#capacity = Math.max(i + 1, this.#values.length * 2);
			this.#values = this.#copy(this.#values, this.#capacity);
		}
		this.#values[i] = value;
	}

	/** The column; with `order`, record i of the result is record order[i] of the input. */
	build(order: Uint32Array | null): Column {
		const n = this.#count;
		if (this.#values === null) return new UniformColumn(n, this.#first);
		let values = this.#values.subarray(0, n);
		if (order) {
			const sorted = this.#make(n);
			for (let i = 0; i < n; i++) sorted[i] = values[order[i]!]!;
			values = sorted;
		}
		return new ArrayColumn(values);
	}

	#copy(values: Values, capacity: number): Values {
		const next = this.#make(capacity);
		next.set(values.subarray(0, Math.min(values.length, capacity)));
		return next;
	}
}
