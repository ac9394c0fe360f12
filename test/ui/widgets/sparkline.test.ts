import {describe, expect, test} from 'vitest';
import fc from 'fast-check';
import {sparkline} from '../../../src/ui/widgets/sparkline.js';

describe('sparkline', () => {
	test('0 to max map onto the eight blocks', () => {
		// Each value × 7 / max, rounded: 0, 0.9→1, 1.75→2, 2.6→3, 3.5→4, 4.4→4, 5.25→5, 6.1→6, 7.
		expect(sparkline([0, 12.5, 25, 37.5, 50, 62.5, 75, 87.5, 100], 9, 100)).toBe('▁▂▃▄▅▅▆▇█');
		expect(sparkline([0, 100], 2, 100)).toBe('▁█');
	});

	test('without a max the largest value shown is a full block', () => {
		expect(sparkline([1, 2, 4], 3)).toBe('▃▅█');
	});

	test('only the newest values are drawn, newest on the right', () => {
		expect(sparkline([100, 100, 100, 0, 0], 2, 100)).toBe('▁▁');
		expect(sparkline([0, 0, 0, 100], 2, 100)).toBe('▁█');
	});

	test('short history is padded on the left to the fixed width', () => {
		expect(sparkline([100], 4, 100)).toBe('   █');
		expect(sparkline([], 3, 100)).toBe('   ');
	});

	test('values over max and below 0 are clamped; non-numbers are gaps', () => {
		expect(sparkline([150, -5, Number.NaN, 50], 4, 100)).toBe('█▁ ▅');
	});

	test('all zeros draw the lowest block; a max that is not a positive number is ignored', () => {
		expect(sparkline([0, 0], 2)).toBe('▁▁');
		expect(sparkline([1, 2], 2, Number.NaN)).toBe('▅█');
		expect(sparkline([1, 2], 2, 0)).toBe('▅█');
	});

	test('width 0 or less is empty', () => {
		expect(sparkline([1, 2], 0)).toBe('');
		expect(sparkline([1, 2], -3)).toBe('');
	});

	test('always exactly `width` columns', () => {
		fc.assert(
			fc.property(
				fc.array(fc.double({noNaN: false})),
				fc.integer({min: 0, max: 80}),
				fc.option(fc.double()),
				(values, width, max) => {
					expect([...sparkline(values, width, max ?? undefined)].length).toBe(width);
				},
			),
		);
	});
});
