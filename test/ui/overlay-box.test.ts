import {describe, expect, test} from 'vitest';
import {type BoxPlace, boxLine, boxWidthFor, maxBoxSize, placeBox} from '../../src/ui/overlay-box.js';

// Where a box floats over the panes: as big as its content, within columns − 4 × rows − 3, centred
// (or at the top), always above the key bar (line rows − 2) and inside the screen.

const sizes = [
	[60, 15],
	[80, 24],
	[100, 30],
	[120, 40],
	[200, 60],
	[250, 70],
] as const;

const contents = {
	'a small box': {width: 30, height: 6},
	'a wide box': {width: 500, height: 6},
	'a tall box': {width: 40, height: 300},
	'a huge box': {width: 1000, height: 1000},
};

const places: readonly BoxPlace[] = ['centre', 'top'];

describe('placeBox: every size, content and place', () => {
	for (const [name, content] of Object.entries(contents)) {
		for (const place of places) {
			test.each(sizes)(`${name}, ${place}, on %i×%i`, (columns, rows) => {
				const box = placeBox(columns, rows, content, place);
				// No bigger than needed, nor than the screen allows.
				expect(box.width).toBe(Math.min(content.width, columns - 4));
				expect(box.height).toBe(Math.min(content.height, rows - 3));
				// Inside the screen, above the key bar (the panes' area is lines 0 … rows − 3).
				expect(box.left).toBeGreaterThanOrEqual(0);
				expect(box.left + box.width).toBeLessThanOrEqual(columns);
				expect(box.top).toBeGreaterThanOrEqual(0);
				expect(box.top + box.height).toBeLessThanOrEqual(rows - 2);
				// Centred across: the panes show on both sides, as much on each (one column apart at most).
				const right = columns - box.left - box.width;
				expect(box.left).toBeGreaterThanOrEqual(2);
				expect(right - box.left).toBeGreaterThanOrEqual(0);
				expect(right - box.left).toBeLessThanOrEqual(1);
				if (place === 'top') {
					expect(box.top).toBe(0);
				} else {
					const below = rows - 2 - box.top - box.height;
					expect(below - box.top).toBeGreaterThanOrEqual(0);
					expect(below - box.top).toBeLessThanOrEqual(1);
				}
			});
		}
	}
});

describe('placeBox: cases', () => {
	test.each([
		// columns, rows, content, place, expected
		[80, 24, {width: 40, height: 10}, 'centre', {left: 20, top: 6, width: 40, height: 10}],
		[80, 24, {width: 41, height: 11}, 'centre', {left: 19, top: 5, width: 41, height: 11}],
		[80, 24, {width: 120, height: 50}, 'centre', {left: 2, top: 0, width: 76, height: 21}],
		[80, 24, {width: 40, height: 8}, 'top', {left: 20, top: 0, width: 40, height: 8}],
		[60, 15, {width: 58, height: 14}, 'centre', {left: 2, top: 0, width: 56, height: 12}],
		[120, 40, {width: 60, height: 20}, 'centre', {left: 30, top: 9, width: 60, height: 20}],
		[250, 70, {width: 118, height: 22}, 'top', {left: 66, top: 0, width: 118, height: 22}],
	] as const)('%i×%i, content %o, %s → %o', (columns, rows, content, place, expected) => {
		expect(placeBox(columns, rows, content, place)).toEqual(expected);
	});

	test('a box never shrinks below its frame and a character', () => {
		expect(placeBox(80, 24, {width: 0, height: 0})).toEqual({left: 37, top: 9, width: 5, height: 3});
	});

	test('the largest box leaves 2 columns each side and a line of panes', () => {
		expect(maxBoxSize(80, 24)).toEqual({width: 76, height: 21});
		expect(maxBoxSize(60, 15)).toEqual({width: 56, height: 12});
	});
});

describe('a box line covers every cell between the borders', () => {
	test.each([
		['abc', 10, ' abc    '],
		['', 6, '    '],
		['exactly6', 12, ' exactly6 '],
		['a long line', 8, ' a l… '],
		['✓ ✗ ▸ …', 11, ' ✓ ✗ ▸ … '],
	])('%j in a box %i wide → %j', (text, width, line) => {
		expect(boxLine(text, width)).toBe(line);
		expect([...boxLine(text, width)]).toHaveLength(width - 2);
	});

	test('the width a box needs: its widest line and the frame', () => {
		expect(boxWidthFor(['ab', 'abcdef', ''])).toBe(10);
		expect(boxWidthFor([])).toBe(4);
	});
});
