// The JSON grammar over bytes, for scanners that read a few known fields out of a line without
// building objects (see scan-line.ts). Everything is checked as strictly as JSON.parse checks it;
// what this cannot vouch for cheaply (escapes in strings) makes a method return false, and the
// caller hands the line to JSON.parse.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const MAX_DEPTH = 32;

/** 10^0 … 10^22: exact doubles, so m × 10^k and m / 10^k are single correctly rounded operations. */
const POW10 = Array.from({length: 23}, (_, k) => Number(`1e${k}`));

/** The hash #string computes over a string's bytes; keys are matched by it, then confirmed. */
export function keyHash(bytes: Uint8Array): number {
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
		return convert ? this.#convert() : this.#check();
	}

	/**
	 * A number only checked: the grammar, and that it is finite. Most numbers of a record are
	 * only checked, so this path does no arithmetic but for the magnitude.
	 */
	#check(): boolean {
		const buf = this.buf;
		const end = this.end;
		const start = this.pos;
		let p = start;
		if (p < end && buf[p] === MINUS) p++;
		if (p >= end) return false;
		let c = buf[p]!;
		/** Digits before the point, without a leading zero: the decimal magnitude. */
		let magnitude = 0;
		if (c === ZERO) p++;
		else if (c > ZERO && c <= NINE) {
			const first = p;
			while (p < end && (c = buf[p]!) >= ZERO && c <= NINE) p++;
			magnitude = p - first;
		} else return false;
		if (p < end && buf[p] === DOT) {
			const first = ++p;
			while (p < end && (c = buf[p]!) >= ZERO && c <= NINE) p++;
			if (p === first) return false;
		}
		if (p < end && (buf[p] === 0x65 || buf[p] === 0x45)) {
			// An exponent: rare in our logs; the full conversion checks it (and the finiteness).
			this.pos = start;
			return this.#convert();
		}
		this.pos = p;
		// Below 10^308 the double is finite.
		return magnitude <= 308 || this.#convertAt(start);
	}

	/** Converts the literal at `start` again, for its finiteness. */
	#convertAt(start: number): boolean {
		this.pos = start;
		return this.#convert();
	}

	/** A number literal, checked against the grammar; its value goes to `num`. */
	#convert(): boolean {
		const buf = this.buf;
		const end = this.end;
		const start = this.pos;
		let p = start;
		let negative = false;
		if (p < end && buf[p] === MINUS) {
			negative = true;
			p++;
		}
		if (p >= end) return false;
		let mantissa = 0;
		/** Significant digits taken into the mantissa (leading zeros not counted), at most 17. */
		let digits = 0;
		/** The power of ten the mantissa is scaled by. */
		let scale = 0;
		let c = buf[p]!;
		if (c === ZERO) {
			p++;
		} else if (c > ZERO && c <= NINE) {
			while (p < end && (c = buf[p]!) >= ZERO && c <= NINE) {
				if (digits < 17) {
					mantissa = mantissa * 10 + (c - ZERO);
					digits++;
				} else {
					scale++;
				}
				p++;
			}
		} else {
			return false;
		}
		if (p < end && buf[p] === DOT) {
			p++;
			const first = p;
			while (p < end && (c = buf[p]!) >= ZERO && c <= NINE) {
				if (digits < 17) {
					mantissa = mantissa * 10 + (c - ZERO);
					if (mantissa !== 0) digits++;
					scale--;
				}
				p++;
			}
			if (p === first) return false;
		}
		let exponent = 0;
		if (p < end && (buf[p] === 0x65 || buf[p] === 0x45)) {
			p++;
			let expNegative = false;
			if (p < end && (buf[p] === PLUS || buf[p] === MINUS)) {
				expNegative = buf[p] === MINUS;
				p++;
			}
			const first = p;
			while (p < end && (c = buf[p]!) >= ZERO && c <= NINE) {
				// Past 10^6 the value is 0 or Infinity whatever follows; keep the integer small.
				if (exponent < 1_000_000) exponent = exponent * 10 + (c - ZERO);
				p++;
			}
			if (p === first) return false;
			if (expNegative) exponent = -exponent;
		}
		this.pos = p;
		const power = scale + exponent;
		if (digits <= 15 && power >= -22 && power <= 22) {
			// Clinger's fast path: an exact integer below 2^53 times or over an exact power of ten
			// is one correctly rounded operation, the very double JSON.parse gives.
			const value = power >= 0 ? mantissa * POW10[power]! : mantissa / POW10[-power]!;
			this.num = negative ? -value : value;
			return true;
		}
		const value = Number(buf.toString('latin1', start, p));
		if (!Number.isFinite(value)) return false;
		this.num = value;
		return true;
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

	/** Epoch ms of the last string read, as Date.parse gives it; NaN when it is no date. */
	protected date(): number {
		const buf = this.buf;
		const s = this.strStart;
		// toISOString()'s form, YYYY-MM-DDTHH:MM:SS.sssZ, read without making a string.
		if (
			this.strEnd - s === 24 &&
			buf[s + 4] === MINUS &&
			buf[s + 7] === MINUS &&
			buf[s + 10] === 0x54 &&
			buf[s + 13] === COLON &&
			buf[s + 16] === COLON &&
			buf[s + 19] === DOT &&
			buf[s + 23] === 0x5a
		) {
			const year = this.#digits(s, 4);
			const month = this.#digits(s + 5, 2);
			const day = this.#digits(s + 8, 2);
			const hour = this.#digits(s + 11, 2);
			const minute = this.#digits(s + 14, 2);
			const second = this.#digits(s + 17, 2);
			const ms = this.#digits(s + 20, 3);
			// Inside these ranges Date.UTC and Date.parse agree; outside them (day 31 of a short
			// month, hour 24, years Date.UTC maps to 19xx) Date.parse decides.
			if (
				year >= 1970 &&
				month >= 1 &&
				month <= 12 &&
				day >= 1 &&
				day <= 28 &&
				hour >= 0 &&
				hour <= 23 &&
				minute >= 0 &&
				minute <= 59 &&
				second >= 0 &&
				second <= 59 &&
				ms >= 0
			) {
				return Date.UTC(year, month - 1, day, hour, minute, second, ms);
			}
		}
		return Date.parse(buf.toString('utf8', s, this.strEnd));
	}

	/** The decimal value of `count` ASCII digits at `at`; -1 if one is not a digit. */
	#digits(at: number, count: number): number {
		let value = 0;
		for (let i = 0; i < count; i++) {
			const c = this.buf[at + i]!;
			if (c < ZERO || c > NINE) return -1;
			value = value * 10 + (c - ZERO);
		}
		return value;
	}
}

export const BYTE = {QUOTE, COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET} as const;
