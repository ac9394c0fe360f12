import {describe, expect, it} from 'vitest';
import {binColumns, plotArea, runsOf, thresholdRowFromTop} from '../../../src/ui/widgets/braille-plot.js';

const points = (values: readonly (number | null)[], step = 1000, start = 0) =>
	values.flatMap((value, i) => (value === null ? [] : [{time: start + i * step, value}]));

describe('binColumns', () => {
	it('keeps the highest sample of each column, so a one-sample peak is never smoothed away', () => {
		// 8 samples into 4 columns: pairs.
		expect(binColumns(points([10, 90, 20, 30, 40, 40, 5, 6]), 0, 8000, 4)).toEqual([90, 30, 40, 6]);
	});

	it('holds the last value across columns finer than the sampling, but leaves a real gap empty', () => {
		// Samples every 1 s for 4 s, silence, then 2 more: 24 columns of 0.5 s.
		const series = [...points([50, 50, 50, 50]), ...points([70, 70], 1000, 10_000)];
		const bins = binColumns(series, 0, 12_000, 24);
		// Columns between samples 1 s apart are held (no dotted line)…
		expect(bins.slice(0, 8)).toEqual([50, 50, 50, 50, 50, 50, 50, 50]);
		// …but 6 s of silence (three typical gaps is 3 s) is shown as silence.
		expect(bins.slice(14, 19)).toEqual([null, null, null, null, null]);
		expect(bins[20]).toBe(70);
	});

	it('draws nothing before the first sample', () => {
		expect(binColumns(points([40], 1000, 5000), 0, 8000, 8).slice(0, 5)).toEqual([null, null, null, null, null]);
	});
});

describe('plotArea', () => {
	it('fills braille dots from the bottom to each value, 4 per row and 2 columns per cell', () => {
		// 2 rows = 8 dot rows; values 100, 50, 25, 0 in 2 cells.
		const rows = plotArea({points: points([100, 50, 25, 0]), from: 0, to: 4000, width: 2, height: 2});
		// 100 % lights the left column's 8 dots, 50 % the right column's bottom 4, 25 % two, 0 % none.
		expect(rows.map(r => r.map(c => c.char).join(''))).toEqual(['⡇ ', '⣿⡄']);
	});

	it("marks cells over the threshold 'over' and draws the threshold where the area does not reach", () => {
		const rows = plotArea({points: points([95, 95, 10, 10]), from: 0, to: 4000, width: 2, height: 4, threshold: 85});
		expect(rows[0]!.map(c => c.style)).toEqual(['over', 'threshold']);
		expect(rows[0]![1]!.char).toBe('┄');
		expect(rows[3]!.map(c => c.style)).toEqual(['over', 'data']);
		expect(thresholdRowFromTop(85, 4)).toBe(0);
		expect(thresholdRowFromTop(50, 4)).toBe(2);
		expect(thresholdRowFromTop(null, 4)).toBeNull();
	});

	it('shows a low but non-zero value as one dot rather than nothing', () => {
		const rows = plotArea({points: points([1, 1]), from: 0, to: 2000, width: 1, height: 5});
		expect(rows.at(-1)![0]!.style).toBe('data');
		expect(rows.slice(0, -1).every(r => r[0]!.style === 'empty')).toBe(true);
	});

	it('joins neighbouring cells of one style into runs', () => {
		expect(
			runsOf([
				{char: 'a', style: 'data'},
				{char: 'b', style: 'data'},
				{char: 'c', style: 'over'},
			]),
		).toEqual([
			{text: 'ab', style: 'data'},
			{text: 'c', style: 'over'},
		]);
	});
});
