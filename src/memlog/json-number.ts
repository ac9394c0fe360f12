// JSON number literals read from bytes, as strictly as JSON.parse reads them: the grammar, and
// finiteness (1e999 parses to Infinity, which the record schema rejects). A pure function over a
// buffer; the value of a converted number is left in NUMBER (no object per number).

const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** 10^0 … 10^22: exact doubles, so m × 10^k and m / 10^k are single correctly rounded operations. */
const POW10 = Array.from({length: 23}, (_, k) => Number(`1e${k}`));

/** The value of the last number readNumber converted. */
export const NUMBER = {value: 0};

/**
 * The number literal at buf[start…end): its end position, or -1 when it is not one (or not finite).
 * With `convert`, its value goes to NUMBER.value; without, it is only checked, with no arithmetic
 * but the magnitude (most numbers of a record are only checked).
 */
export function readNumber(buf: Buffer, start: number, end: number, convert: boolean): number {
	return convert ? convertNumber(buf, start, end) : checkNumber(buf, start, end);
}

function checkNumber(buf: Buffer, start: number, end: number): number {
	let p = start;
	if (p < end && buf[p] === MINUS) p++;
	if (p >= end) return -1;
	let c = buf[p]!;
	/** Digits before the point, without a leading zero: the decimal magnitude. */
	let magnitude = 0;
	if (c === ZERO) p++;
	else if (c > ZERO && c <= NINE) {
		const first = p;
		while (p < end && (c = buf[p]!) >= ZERO && c <= NINE) p++;
		magnitude = p - first;
	} else return -1;
	if (p < end && buf[p] === DOT) {
		const first = ++p;
		while (p < end && (c = buf[p]!) >= ZERO && c <= NINE) p++;
		if (p === first) return -1;
	}
	// An exponent (rare in our logs), or a magnitude past 10^308: the full conversion decides.
	if ((p < end && (buf[p] === 0x65 || buf[p] === 0x45)) || magnitude > 308) return convertNumber(buf, start, end);
	return p;
}

function convertNumber(buf: Buffer, start: number, end: number): number {
	let p = start;
	let negative = false;
	if (p < end && buf[p] === MINUS) {
		negative = true;
		p++;
	}
	if (p >= end) return -1;
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
		return -1;
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
		if (p === first) return -1;
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
		if (p === first) return -1;
		if (expNegative) exponent = -exponent;
	}
	const power = scale + exponent;
	if (digits <= 15 && power >= -22 && power <= 22) {
		// Clinger's fast path: an exact integer below 2^53 times or over an exact power of ten
		// is one correctly rounded operation, the very double JSON.parse gives.
		const value = power >= 0 ? mantissa * POW10[power]! : mantissa / POW10[-power]!;
		NUMBER.value = negative ? -value : value;
		return p;
	}
	const value = Number(buf.toString('latin1', start, p));
	if (!Number.isFinite(value)) return -1;
	NUMBER.value = value;
	return p;
}
