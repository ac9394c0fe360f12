import {describe, expect, it} from 'vitest';
import {chartGrid} from '../../../src/ui/history/chart-grid.js';

describe('chartGrid', () => {
	it.each([
		// count, width, rows → columns, heights (all rows used)
		[1, 120, 20, 1, [20]],
		[2, 120, 20, 1, [10, 10]],
		[3, 120, 14, 3, [14]],
		[9, 200, 30, 3, [10, 10, 10]],
		[9, 250, 24, 5, [12, 12]],
	])('%i charts in %i×%i: %i columns, rows %j', (count, width, rows, columns, heights) => {
		const grid = chartGrid(count, width, rows);
		expect(grid?.columns).toBe(columns);
		expect(grid?.heights).toEqual(heights);
		expect(grid!.heights.reduce((a, b) => a + b, 0)).toBe(rows);
		// The columns and the gaps between them fill the width exactly.
		expect(grid!.widths.reduce((a, b) => a + b, 0) + 2 * (grid!.columns - 1)).toBe(width);
	});

	it('answers null when not even one chart row fits: the pane then merges charts or draws strips', () => {
		expect(chartGrid(9, 120, 8)).toBeNull();
		expect(chartGrid(1, 120, 3)).toBeNull();
		expect(chartGrid(1, 30, 10)).toBeNull();
		expect(chartGrid(1, 120, 4)?.heights).toEqual([4]);
	});
});

describe('chartGrid: how many plot rows it insists on', () => {
	it('finds nothing for 9 charts in 120×12 with 3 plot rows each: the pane then merges the GPUs', () => {
		expect(chartGrid(9, 120, 12, 3)).toBeNull();
		expect(chartGrid(2, 120, 12, 3)?.heights).toEqual([12]);
	});
});
