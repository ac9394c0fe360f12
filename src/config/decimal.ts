// Number flags are seconds and percentages typed by a person: plain decimals only. Number() alone would take `0x10`
// as 16, `1e2` as 100, `Infinity`, and turn `1e400` into Infinity (shown as "null" by JSON.stringify): each of those
// is a typo or a trick more often than a meaning, so it is refused with the text quoted as typed.

/** An optional sign, digits with an optional fraction, or a fraction alone: `30`, `-1`, `0.5`, `.5`, `2.`. */
const PLAIN_DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** What the messages say a number flag needs. */
export const PLAIN_DECIMAL_WORDS = 'a plain decimal number such as 30 or 0.5';

/** The number a plain decimal (blanks around allowed) stands for; null for anything else or a non-finite value. */
export function parseDecimal(text: string): number | null {
	const trimmed = text.trim();
	if (!PLAIN_DECIMAL.test(trimmed)) return null;
	const value = Number(trimmed);
	return Number.isFinite(value) ? value : null;
}
