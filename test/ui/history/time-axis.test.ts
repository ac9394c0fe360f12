import {describe, expect, it} from 'vitest';
import type {Marker} from '../../../src/core/markers.js';
import {markerRule, tickRow, timeTicks} from '../../../src/ui/widgets/time-axis.js';

const at = (h: number, m: number, s = 0) => new Date(2026, 10, 24, h, m, s).getTime();
const marker = (time: number, kind: Marker['kind'], level: Marker['level'] = 'ok'): Marker => ({
	time,
	kind,
	level,
});

describe('timeTicks', () => {
	it('labels round clock times, spaced at least the gap apart, none cut at the right edge', () => {
		// 5 minutes over 60 columns: 5 s a column, so 1-minute steps (12 columns) are the first that fit.
		const ticks = timeTicks(at(14, 0, 30), at(14, 5, 30), 60);
		expect(ticks.map(t => t.label)).toEqual(['14:01', '14:02', '14:03', '14:04', '14:05']);
		expect(ticks[0]!.x).toBe(6);
		for (const t of ticks) expect(t.x + t.label.length).toBeLessThanOrEqual(60);
		expect(tickRow(ticks, 60).slice(6, 11)).toBe('14:01');
	});

	it('shows seconds when the steps are under a minute, and wider steps for longer windows', () => {
		expect(timeTicks(at(9, 0, 0), at(9, 1, 0), 60)[0]?.label).toBe('09:00:00');
		const hour = timeTicks(at(9, 0), at(10, 0), 40);
		expect(hour.map(t => t.label)).toEqual(['09:00', '09:30']);
	});
});

describe('markerRule', () => {
	it('puts each mark at its time, and an exit or the worse alert wins a shared column', () => {
		const from = at(12, 0);
		const to = at(12, 10);
		const cells = markerRule(
			[
				marker(at(12, 1), 'save'),
				marker(at(12, 5), 'save'),
				marker(at(12, 5), 'alert', 'critical'),
				marker(at(12, 9), 'alert', 'warn'),
				marker(at(12, 9), 'exit', 'critical'),
				marker(at(11, 0), 'save'),
			],
			from,
			to,
			10,
		);
		expect(cells.map(c => c.char).join('')).toBe('─▲───!───✕');
		expect(cells[5]!.style).toBe('critical');
		expect(cells[9]!.style).toBe('critical');
		expect(cells[1]!.style).toBe('save');
	});
});
