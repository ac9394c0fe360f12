// The JSON grammar over bytes, for scanners that read a few known fields out of a line without
// building objects (see scan-line.ts). Everything is checked as strictly as JSON.parse checks it;
// what this cannot vouch for cheaply (escapes in strings) makes a method return false, and the
// caller hands the line to JSON.parse. Numbers: json-number.ts; dates: iso-date.ts.

import {isoDate} from './iso-date.js';
import {NUMBER, readNumber} from './json-number.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const MAX_DEPTH = 32;

/** The hash #string computes over a string's bytes; keys are matched by it, then confirmed. */
function keyHash(bytes: Uint8Array): number {
	let h = 0;
	for (const c of bytes) h = (Math.imul(h, 31) + c) | 0;
	return h;
}

/**
 * A table of known keys: hash → id in an open-addressed typed array (no Map on the hot path),
 * confirmed byte by byte. Ids start at 1; 0 is "unknown".
 */
export class KeyTable {
	/** Pairs (hash, id); id 0 marks an empty slot. */
	readonly #slots: Int32Array;
	readonly #mask: number;
	readonly bytes: Uint8Array[] = [new Uint8Array(0)];

	constructor(keys: readonly string[]) {
		let size = 16;
		while (size < keys.length * 4) size *= 2;
		this.#slots = new Int32Array(size * 2);
		this.#mask = size - 1;
		for (const key of keys) {
			const bytes = new TextEncoder().encode(key);
			const hash = keyHash(bytes);
			let i = hash & this.#mask;
			while (this.#slots[2 * i + 1] !== 0) {
				if (this.#slots[2 * i] === hash) throw new Error(`KeyTable: hash collision on ${key}`);
				i = (i + 1) & this.#mask;
			}
			this.#slots[2 * i] = hash;
			this.#slots[2 * i + 1] = this.bytes.length;
			this.bytes.push(bytes);
		}
	}

	/** The id of buf[start, end) given its hash; 0 when it is none of the keys. */
	id(hash: number, buf: Uint8Array, start: number, end: number): number {
		const slots = this.#slots;
		let i = hash & this.#mask;
		let id = slots[2 * i + 1]!;
		while (id !== 0 && slots[2 * i] !== hash) {
			i = (i + 1) & this.#mask;
			id = slots[2 * i + 1]!;
		}
		if (id === 0) return 0;
		const key = this.bytes[id]!;
		if (key.length !== end - start) return 0;
		for (let k = 0; k < key.length; k++) if (key[k] !== buf[start + k]) return 0;
		return id;
	}
}

export class JsonBytes {
	protected buf: Buffer = Buffer.alloc(0);
	protected pos = 0;
	protected end = 0;
	/** The last string read is buf[strStart, strEnd) (the quotes excluded); strHash its keyHash. */
	protected strStart = 0;
	protected strEnd = 0;
	protected strHash = 0;
	/** The last number read, when it was converted; NaN after a null. */
	protected num = 0;

	protected reset(buf: Buffer, start: number, end: number): void {
		this.buf = buf;
		this.pos = start;
		this.end = end;
	}

	protected space(): void {
		const buf = this.buf;
		let p = this.pos;
		while (p < this.end) {
			const c = buf[p]!;
			if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) break;
			p++;
		}
		this.pos = p;
	}

	/** Steps over byte c (after blanks) if it is next. */
	protected take(c: number): boolean {
		if (this.pos < this.end && this.buf[this.pos] === c) {
			this.pos++;
			return true;
		}
		this.space();
		if (this.pos < this.end && this.buf[this.pos] === c) {
			this.pos++;
			return true;
		}
		return false;
	}

	/** At a blank-free boundary, the next byte, or -1 at the end. */
	protected peek(): number {
		this.space();
		return this.pos < this.end ? this.buf[this.pos]! : -1;
	}

	/** A string without escapes or control characters: its bytes are buf[strStart, strEnd). */
	protected string(): boolean {
		if (this.pos >= this.end || this.buf[this.pos] !== QUOTE) {
			this.space();
			if (this.pos >= this.end || this.buf[this.pos] !== QUOTE) return false;
		}
		const buf = this.buf;
		const end = this.end;
		let p = this.pos + 1;
		const start = p;
		while (p < end) {
			const c = buf[p]!;
			if (c === QUOTE) {
				this.strStart = start;
				this.strEnd = p;
				this.pos = p + 1;
				return true;
			}
			// An escape: JSON.parse would decode it (in keys too); leave the line to it.
			if (c === BACKSLASH || c < 0x20) return false;
			p++;
		}
		return false;
	}

	/** `"key":` — a key and its colon; the key's keyHash goes to strHash. */
	protected key(): boolean {
		if (!this.string() || !this.take(COLON)) return false;
		let h = 0;
		for (let p = this.strStart; p < this.strEnd; p++) h = (Math.imul(h, 31) + this.buf[p]!) | 0;
		this.strHash = h;
		return true;
	}

	/**
	 * `"<expected>":` next? Steps over it and says true; otherwise leaves the position alone. One
	 * pass over the bytes, no hashing: the scanner guesses each key from the line before.
	 */
	protected keyIs(expected: Uint8Array): boolean {
		const buf = this.buf;
		let p = this.pos;
		if (buf[p] !== QUOTE) return false;
		p++;
		const n = expected.length;
		if (p + n + 1 >= this.end) return false;
		for (let i = 0; i < n; i++) if (buf[p + i] !== expected[i]) return false;
		if (buf[p + n] !== QUOTE) return false;
		this.pos = p + n + 1;
		if (this.take(COLON)) return true;
		this.pos = p - 1;
		return false;
	}

	/**
	 * A JSON number literal, checked against the grammar. With `convert` its value goes to `num`;
	 * without, it is only checked to be finite (1e999 parses to Infinity, which the schema rejects).
	 */
	protected number(convert: boolean): boolean {
		if (this.buf[this.pos]! <= 0x20) this.space();
		const end = readNumber(this.buf, this.pos, this.end, convert);
		if (end < 0) return false;
		this.pos = end;
		if (convert) this.num = NUMBER.value;
		return true;
	}

	/** Epoch ms of the last string read, as Date.parse gives it; NaN when it is no date. */
	protected date(): number {
		return isoDate(this.buf, this.strStart, this.strEnd);
	}

	/** `null` next: steps over it, num = NaN. Anything else: false, position kept. */
	protected nul(): boolean {
		if (this.buf[this.pos]! <= 0x20) this.space();
		const buf = this.buf;
		const p = this.pos;
		if (p + 4 <= this.end && buf[p] === 0x6e && buf[p + 1] === 0x75 && buf[p + 2] === 0x6c && buf[p + 3] === 0x6c) {
			this.pos = p + 4;
			this.num = Number.NaN;
			return true;
		}
		return false;
	}

	/** A number (into num) or null (num = NaN). */
	protected numberOrNull(convert: boolean): boolean {
		return this.nul() || this.number(convert);
	}

	#literal(word: string): boolean {
		const buf = this.buf;
		const p = this.pos;
		if (p + word.length > this.end) return false;
		for (let i = 0; i < word.length; i++) if (buf[p + i] !== word.charCodeAt(i)) return false;
		this.pos = p + word.length;
		return true;
	}

	/** Any JSON value, checked and thrown away. */
	protected skip(depth: number): boolean {
		const c = this.peek();
		if (c === QUOTE) return this.string();
		if (c === MINUS || (c >= ZERO && c <= NINE)) return this.number(false);
		if (c === 0x6e) return this.#literal('null');
		if (c === 0x74) return this.#literal('true');
		if (c === 0x66) return this.#literal('false');
		if (depth >= MAX_DEPTH) return false;
		if (c === OPEN_BRACE) {
			this.pos++;
			if (this.take(CLOSE_BRACE)) return true;
			do {
				if (!this.key() || !this.skip(depth + 1)) return false;
			} while (this.take(COMMA));
			return this.take(CLOSE_BRACE);
		}
		if (c === OPEN_BRACKET) {
			this.pos++;
			if (this.take(CLOSE_BRACKET)) return true;
			do {
				if (!this.skip(depth + 1)) return false;
			} while (this.take(COMMA));
			return this.take(CLOSE_BRACKET);
		}
		return false;
	}
}

export const BYTE = {QUOTE, COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET} as const;
