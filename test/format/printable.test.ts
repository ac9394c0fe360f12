import {describe, expect, test} from 'vitest';
import {printable} from '../../src/format/printable.js';

// The one filter every string from outside passes before it reaches the terminal.

/** Any character a terminal may act on: C0, DEL, C1, and the bidirectional controls. */
const CONTROL = (text: string): boolean =>
	[...text].some(char => {
		const code = char.codePointAt(0) ?? 0;
		return (
			code < 0x20 || (code >= 0x7f && code < 0xa0) || [0x200e, 0x200f, 0x202a, 0x202e, 0x2066, 0x2069].includes(code)
		);
	});

describe('printable', () => {
	test('an OSC title sequence is shown whole and inert', () => {
		expect(printable('ckpt-200\u001b]0;PWNED\u0007')).toBe('ckpt-200\\e]0;PWNED\\x07');
	});

	test('CSI colours, 8-bit CSI/OSC, DEL, NUL, CR and LF all become visible escapes', () => {
		const out = printable('a\u001b[31mred\u001b[0m\u009b2J\u009d0;x\u0007\u007f\u0000b\r\nc');
		expect(out).toBe('a\\e[31mred\\e[0m\\x9b2J\\x9d0;x\\x07\\x7f\\x00b\\r\\nc');
		expect(CONTROL(out)).toBe(false);
	});

	test('a tab is one space; bidirectional overrides are named; letters of any script are kept', () => {
		expect(printable('a\tb')).toBe('a b');
		expect(printable('evil\u202egnp.pt')).toBe('evil\\u{202e}gnp.pt');
		expect(printable('chécköpoint-步骤 · 5')).toBe('chécköpoint-步骤 · 5');
	});

	test('every code point below U+00A0 comes out printable', () => {
		const all = Array.from({length: 0xa0}, (_, code) => String.fromCharCode(code)).join('');
		expect(CONTROL(printable(all))).toBe(false);
	});
});
