import {expect, test} from 'vitest';
import {columns, padEnd, padStart, truncate} from '../../src/format/columns.js';

test('columns counts code points, so the glyphs traintop draws are one column each', () => {
	expect(columns('✓ ✗ █ ┊')).toBe(7);
	expect(columns('')).toBe(0);
});

test('padEnd and padStart fill to the width and never cut', () => {
	expect(padEnd('ok', 4)).toBe('ok  ');
	expect(padStart('42', 4)).toBe('  42');
	expect(padEnd('✓✓', 3)).toBe('✓✓ ');
	expect(padStart('toolong', 3)).toBe('toolong');
});

test('truncate cuts with an ellipsis only when something was cut', () => {
	expect(truncate('abcdef', 6)).toBe('abcdef');
	expect(truncate('abcdef', 4)).toBe('abc…');
	expect(truncate('✓✓✓', 2)).toBe('✓…');
	expect(truncate('abc', 1)).toBe('…');
	expect(truncate('abc', 0)).toBe('');
	expect(truncate('abc', -1)).toBe('');
});
