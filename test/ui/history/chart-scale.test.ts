import {describe, expect, it} from 'vitest';
import {chartTop} from '../../../src/ui/history/chart-scale.js';

describe('chartTop', () => {
	it.each([
		// threshold, window max → top
		[85, 3.4, 100],
		[90, 95, 100],
		[50, 10, 60],
		[null, 3, 100],
		[5, 3.4, 6],
		[5, 7.2, 8],
		[8, 3.4, 10],
		[9.3, 10.7, 15],
		[2, 1.2, 2.5],
		[20, 30, 40],
		[0.5, -1, 1],
	])('threshold %s, highest %s: top %s', (threshold, highest, top) => {
		expect(chartTop(threshold, highest)).toBe(top);
	});
});
