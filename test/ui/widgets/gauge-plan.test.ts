import {describe, expect, test} from 'vitest';
import fc from 'fast-check';
import {
	barSegments,
	filledCells,
	gaugeBaseWidth,
	MARK,
	markColumn,
	MAX_BAR,
	MIN_BAR,
	OPTIONAL_PARTS,
	planGauge,
} from '../../../src/ui/widgets/gauge-plan.js';

describe('markColumn', () => {
	test.each([
		[85, 20, 17],
		[90, 20, 18],
		[50, 10, 5],
		[100, 20, 19], // never past the bar's last cell
		[0, 20, 0],
	])('threshold %d %% on %d cells is column %d', (threshold, width, column) => {
		expect(markColumn(threshold, width)).toBe(column);
	});

	test('no threshold, no mark', () => {
		expect(markColumn(null, 20)).toBeNull();
	});
});

describe('filledCells', () => {
	test('rounds to the nearest cell', () => {
		expect(filledCells(50, null, 20)).toBe(10);
		expect(filledCells(52, null, 20)).toBe(10);
		expect(filledCells(53, null, 20)).toBe(11);
		expect(filledCells(null, 90, 20)).toBe(0);
	});

	test('past the mark exactly when at or over the threshold', () => {
		// 89.9 % would round to 18 cells, reaching the mark at column 18 of 20: held back to 18 (0–17).
		expect(filledCells(89.9, 90, 20)).toBe(18);
		expect(filledCells(90, 90, 20)).toBe(19);
		expect(filledCells(91, 90, 20)).toBe(19);
		expect(filledCells(100, 90, 20)).toBe(20);
	});

	test('for any value, filled beyond the mark ⇔ value ≥ threshold', () => {
		fc.assert(
			fc.property(
				fc.double({min: 0, max: 100, noNaN: true}),
				fc.double({min: 0, max: 100, noNaN: true}),
				fc.integer({min: 1, max: 80}),
				(value, threshold, width) => {
					const filled = filledCells(value, threshold, width);
					const mark = markColumn(threshold, width)!;
					expect(filled > mark).toBe(value >= threshold);
					expect(filled).toBeGreaterThanOrEqual(0);
					expect(filled).toBeLessThanOrEqual(width);
				},
			),
		);
	});
});

describe('barSegments', () => {
	test('filled, empty and the mark, in runs of equal paint', () => {
		expect(barSegments(50, 80, 10)).toEqual([
			{text: '█████', filled: true},
			{text: '░░░┊░', filled: false},
		]);
		// Over the threshold the mark sits inside the filled run.
		expect(barSegments(95, 80, 10)).toEqual([{text: '████████┊█', filled: true}]);
	});

	test('the mark is drawn at its column for every value', () => {
		for (const value of [0, 30, 84, 85, 100]) {
			expect(
				barSegments(value, 85, 20)
					.map(s => s.text)
					.join('')
					.indexOf(MARK),
			).toBe(17);
		}
	});
});

describe('planGauge', () => {
	const label = 4;
	const base = gaugeBaseWidth(label);

	test('narrow: only the bar, at least 1 cell', () => {
		expect(planGauge(base + MIN_BAR, label, 0)).toEqual({barWidth: MIN_BAR, parts: new Set()});
		expect(planGauge(5, label, 0).barWidth).toBe(1);
	});

	test('optional parts come in priority order as width allows: headroom, peak, sparkline, usage', () => {
		const withHeadroom = base + 2 + OPTIONAL_PARTS.headroom.width + MIN_BAR;
		expect([...planGauge(withHeadroom, label, 16).parts]).toEqual(['headroom']);
		expect([...planGauge(80, label, 0).parts]).toEqual(['headroom', 'peak']);
		expect([...planGauge(100, label, 16).parts]).toEqual(['headroom', 'peak', 'sparkline']);
		expect([...planGauge(140, label, 16).parts]).toEqual(['headroom', 'peak', 'sparkline', 'usage']);
	});

	test('parts a gauge does not have take no room: the bar gets it', () => {
		const all = planGauge(70, label, 0);
		const barOnly = planGauge(70, label, 0, new Set());
		expect(barOnly.parts.size).toBe(0);
		expect(barOnly.barWidth).toBe(70 - base);
		expect(barOnly.barWidth).toBeGreaterThan(all.barWidth);
		expect([...planGauge(80, label, 0, new Set(['peak'])).parts]).toEqual(['peak']);
	});

	test('the bar is capped: a very wide gauge does not get a very long bar', () => {
		expect(planGauge(400, label, 32).barWidth).toBe(MAX_BAR);
	});

	test('bar plus parts never exceed the width once the minimum fits', () => {
		fc.assert(
			fc.property(fc.integer({min: base + 1, max: 300}), fc.integer({min: 0, max: 40}), (width, spark) => {
				const plan = planGauge(width, label, spark);
				const parts = [...plan.parts].reduce(
					(sum, p) => sum + 2 + (p === 'sparkline' ? spark : OPTIONAL_PARTS[p].width),
					0,
				);
				expect(base + plan.barWidth + parts).toBeLessThanOrEqual(width);
			}),
		);
	});
});
