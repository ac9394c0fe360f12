import {shownName} from '../system/byte-names.js';

// Text from outside traintop (checkpoint and run-dir names, nvidia-smi's words, another process's command line,
// a scheduler's fields, what a remote agent says) made safe to print or render. A name such as `ckpt<ESC>]0;PWNED<BEL>`
// must not retitle the terminal, recolour it, move its cursor or break a table row: every control character is
// shown as a visible escape instead, so the user still sees (and can find) the exact name.
//
// Which characters, and why:
// - C0 controls (U+0000–U+001F), DEL (U+007F) and C1 controls (U+0080–U+009F, which some terminals obey as
//   8-bit ESC sequences: U+009B is CSI, U+009D is OSC) → `\n`, `\r`, `\e` or `\xHH`. An ESC sequence is thus
//   shown whole and inert (`\e]0;PWNED\x07`), never half-applied.
// - Tab → one space: it is whitespace a person typed, and a real tab would shift every column after it.
// - Bidirectional overrides and isolates (U+200E/F, U+202A–U+202E, U+2066–U+2069) → `\u{…}`: they reorder how
//   the rest of the line reads ("Trojan source"), so a name could show as another name.
// Everything else, non-ASCII letters included, is kept as it is.

/** The code points a terminal may act on, or that reorder what follows: see the list above. */
function unprintable(code: number): boolean {
	return (
		code < 0x20 ||
		(code >= 0x7f && code <= 0x9f) ||
		code === 0x200e ||
		code === 0x200f ||
		(code >= 0x202a && code <= 0x202e) ||
		(code >= 0x2066 && code <= 0x2069)
	);
}

/**
 * Any code unit printable() might change: the controls and reordering marks above, and the lone low surrogates that
 * stand for bytes that were not UTF-8 (system/byte-names.ts). Code units, not code points: the low half of a real
 * surrogate pair may match too, and only sends that string the careful way.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for
const MAYBE_UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\udc80-\udcff]/;

const SHORT: Readonly<Record<number, string>> = {9: ' ', 10: '\\n', 13: '\\r', 27: '\\e'};

function escaped(code: number): string {
	const short = SHORT[code];
	if (short !== undefined) return short;
	return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * `ckpt\x1b]0;PWNED\x07` → `ckpt\e]0;PWNED\x07`: no character in the result is a terminal control. A name's bytes
 * that were not UTF-8 (read as lone surrogates, system/byte-names.ts) show as `\xff`, not as U+FFFD.
 */
export function printable(raw: string): string {
	// Nearly every string has none of them: one scan, no copy (an agent's snapshots are thousands of strings a second).
	if (!MAYBE_UNPRINTABLE.test(raw)) return raw;
	const text = shownName(raw);
	let out = '';
	let from = 0;
	for (let at = 0; at < text.length; at++) {
		const code = text.charCodeAt(at);
		if (!unprintable(code)) continue;
		out += text.slice(from, at) + escaped(code);
		from = at + 1;
	}
	return from === 0 ? text : out + text.slice(from);
}
