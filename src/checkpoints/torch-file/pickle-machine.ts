import type {PyValue} from './py-value.js';

// The pickle machine's state and primitives, for the opcodes (pickle.ts, pickle-values.ts, pickle-objects.ts): the
// bytes and the read offset, the stack, the marks and the memo, each bounded by the limits; anything out of bounds
// is refused with a reason, never thrown past readPickle.

export interface PickleLimits {
	/** Opcodes run before giving up. */
	readonly maxOps: number;
	/** Values on the stack and marks nested (a pickle that nests deeper is not one torch or Python writes). */
	readonly maxStack: number;
	readonly maxMarks: number;
	/** Memo slots (BINPUT indices are chosen by the pickle: a huge one must not allocate). */
	readonly maxMemo: number;
}

/** What the pickle does that this reader will not follow: readPickle turns it into an `unreadable` reason. */
export class Refused extends Error {}

export class PickleMachine {
	readonly bytes: Buffer;
	readonly #limits: PickleLimits;
	/** The next byte to read. */
	at: number;
	readonly #marks: PyValue[][] = [];
	readonly #memo = new Map<number, PyValue>();
	/** The stack since the innermost MARK (the whole stack when there is none). */
	#current: PyValue[] = [];

	constructor(bytes: Buffer, start: number, limits: PickleLimits) {
		this.bytes = bytes;
		this.at = start;
		this.#limits = limits;
	}

	get marked(): boolean {
		return this.#marks.length > 0;
	}

	get stackEmpty(): boolean {
		return this.#current.length === 0;
	}

	take(n: number): Buffer {
		const {at, bytes} = this;
		if (n < 0 || at + n > bytes.length)
			throw new Refused(`cut short: ${n} bytes needed at offset ${at}, it ends at ${bytes.length}`);
		this.at = at + n;
		return bytes.subarray(at, at + n);
	}

	u8(): number {
		return this.take(1).readUInt8(0);
	}

	u16(): number {
		return this.take(2).readUInt16LE(0);
	}

	u32(): number {
		return this.take(4).readUInt32LE(0);
	}

	u64(): number {
		const value = this.take(8).readBigUInt64LE(0);
		if (value > BigInt(this.bytes.length)) throw new Refused(`a length of ${value} bytes, beyond the pickle`);
		return Number(value);
	}

	/** The bytes up to the next newline (protocol 0's arguments), which is skipped. */
	line(): Buffer {
		const end = this.bytes.indexOf(0x0a, this.at);
		if (end < 0) throw new Refused(`cut short: no end of line after offset ${this.at}`);
		const text = this.bytes.subarray(this.at, end);
		this.at = end + 1;
		return text;
	}

	push(value: PyValue): void {
		if (this.#current.length >= this.#limits.maxStack)
			throw new Refused(`over ${this.#limits.maxStack} values on the stack`);
		this.#current.push(value);
	}

	pop(): PyValue {
		const value = this.#current.pop();
		if (value === undefined) throw new Refused('pops an empty stack');
		return value;
	}

	top(): PyValue {
		const value = this.#current.at(-1);
		if (value === undefined) throw new Refused('needs a value on an empty stack');
		return value;
	}

	mark(): void {
		if (this.#marks.length >= this.#limits.maxMarks)
			throw new Refused(`marks nested over ${this.#limits.maxMarks} deep`);
		this.#marks.push(this.#current);
		this.#current = [];
	}

	/** The values pushed since the innermost MARK, which is dropped. */
	popMark(): PyValue[] {
		const items = this.#current;
		const outer = this.#marks.pop();
		if (outer === undefined) throw new Refused('no MARK to pop to');
		this.#current = outer;
		return items;
	}

	/** The memo: PUT stores the top of the stack, GET pushes what was stored. */
	put(index: number): void {
		if (index > this.#limits.maxMemo) throw new Refused(`memo index ${index} over ${this.#limits.maxMemo}`);
		this.#memo.set(index, this.top());
	}

	get memoSize(): number {
		return this.#memo.size;
	}

	get(index: number): void {
		const value = this.#memo.get(index);
		if (value === undefined) throw new Refused(`memo index ${index} was never stored`);
		this.push(value);
	}
}
