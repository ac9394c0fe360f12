import {describe, expect, test} from 'vitest';
import {wrapText} from '../../src/format/wrap-text.js';

describe('wrapText', () => {
	test.each([
		['fits', 'a b c', 5, '', ['a b c']],
		['broken at blanks', 'aaa bbb ccc', 7, '', ['aaa bbb', 'ccc']],
		['a word longer than a line is broken', 'abcdefghij', 4, '', ['abcd', 'efgh', 'ij']],
		['a long word starts a line of its own first', 'x abcdefghij', 4, '', ['x', 'abcd', 'efgh', 'ij']],
		['a word filling a line exactly', 'abcd efgh', 4, '', ['abcd', 'efgh']],
		['no blank after a broken word that filled its line', 'abcdefgh ij', 4, '', ['abcd', 'efgh', 'ij']],
		['blanks at the start are kept', '  RANK  0', 20, '', ['  RANK  0']],
		['blanks at a break are dropped', 'ab  cd', 3, '', ['ab', 'cd']],
		[
			'continuations indented',
			'label     value that wraps',
			15,
			' '.repeat(10),
			['label     value', '          that', '          wraps'],
		],
	])('%s', (_, text, width, indent, expected) => {
		expect(wrapText(text, width, indent)).toEqual(expected);
	});
});
