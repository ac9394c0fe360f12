// A timestamp string read from bytes, with the meaning Date.parse gives it, without making a
// string for the common case: toISOString()'s form, YYYY-MM-DDTHH:MM:SS.sssZ, on every line of our log.

const MINUS = 0x2d;
const COLON = 0x3a;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** The decimal value of `count` ASCII digits at `at`; -1 if one is not a digit. */
function digits(buf: Uint8Array, at: number, count: number): number {
	let value = 0;
	for (let i = 0; i < count; i++) {
		const c = buf[at + i]!;
		if (c < ZERO || c > NINE) return -1;
		value = value * 10 + (c - ZERO);
	}
	return value;
}

/** Epoch ms of the date in buf[start, end) (no quotes), as Date.parse gives it; NaN when it is no date. */
export function isoDate(buf: Buffer, start: number, end: number): number {
	const s = start;
	if (
		end - s === 24 &&
		buf[s + 4] === MINUS &&
		buf[s + 7] === MINUS &&
		buf[s + 10] === 0x54 &&
		buf[s + 13] === COLON &&
		buf[s + 16] === COLON &&
		buf[s + 19] === DOT &&
		buf[s + 23] === 0x5a
	) {
		const year = digits(buf, s, 4);
		const month = digits(buf, s + 5, 2);
		const day = digits(buf, s + 8, 2);
		const hour = digits(buf, s + 11, 2);
		const minute = digits(buf, s + 14, 2);
		const second = digits(buf, s + 17, 2);
		const ms = digits(buf, s + 20, 3);
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
	return Date.parse(buf.toString('utf8', s, end));
}
