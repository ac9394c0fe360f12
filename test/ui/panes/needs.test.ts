import {describe, expect, test} from 'vitest';
import {alertsNeed} from '../../../src/ui/panes/AlertsPane.js';
import {checkpointsNeed} from '../../../src/ui/panes/CheckpointsPane.js';
import {gpuColumnsFor, memoryNeed, sparklineWidthFor} from '../../../src/ui/panes/memory-layout.js';
import {ranksNeed} from '../../../src/ui/panes/RanksPane.js';
import {SCREEN} from '../../../src/ui/panes/registry.js';
import {checkpoint, checkpointIndex, endedJob, jobSet, rankSet, twoJobs} from '../fixtures.js';

// Each pane says what it needs for the data at hand: the rows its own drawing takes.

describe("the panes' needs", () => {
	test('memory: title, RAM, swap and a GPU line each (packed), or one line for the GPU reader', () => {
		expect(memoryNeed(0, 1)).toEqual({min: 4, want: 4});
		expect(memoryNeed(8, 1)).toEqual({min: 4, want: 11});
		expect(memoryNeed(8, 2)).toEqual({min: 4, want: 7});
		expect(memoryNeed(7, 2)).toEqual({min: 4, want: 7});
	});

	test('memory: GPUs are packed only when one a line would take more than their share of the rows', () => {
		expect(gpuColumnsFor(0, 120, 38)).toBe(1);
		expect(gpuColumnsFor(8, 120, 38)).toBe(1);
		expect(gpuColumnsFor(8, 80, 22)).toBe(2);
		// No more gauges a line than fit at their narrowest.
		expect(gpuColumnsFor(64, 80, 13)).toBe(2);
		expect(sparklineWidthFor(99)).toBe(0);
		expect(sparklineWidthFor(120)).toBe(20);
		expect(sparklineWidthFor(400)).toBe(32);
	});

	test('ranks: title, header and a row each; title and the reason when there are none', () => {
		expect(ranksNeed(null)).toEqual({min: 2, want: 2});
		// The title and its "no ranks (launcher alive)" line: no column header over no rows.
		expect(ranksNeed(rankSet(0))).toEqual({min: 2, want: 2});
		expect(ranksNeed(jobSet([]))).toEqual({min: 2, want: 2});
		expect(ranksNeed(rankSet(1))).toEqual({min: 3, want: 3});
		expect(ranksNeed(rankSet(64))).toEqual({min: 3, want: 66});
	});

	test('ranks: with several jobs a header line each; with none, a line per ended job (three at most)', () => {
		expect(ranksNeed(twoJobs())).toEqual({min: 3, want: 2 + 2 + 5});
		expect(ranksNeed(jobSet([], {ended: [endedJob('pid:1', 9)]}))).toEqual({min: 2, want: 2});
		const five = [1, 2, 3, 4, 5].map(i => endedJob(`pid:${i}`, 10 * i));
		expect(ranksNeed(jobSet([], {ended: five}))).toEqual({min: 2, want: 4});
	});

	test('checkpoints: a row for the save status when there is one, "no checkpoints yet" takes a row too', () => {
		expect(checkpointsNeed(null, false)).toEqual({min: 2, want: 2});
		expect(checkpointsNeed(null, true)).toEqual({min: 3, want: 3});
		expect(checkpointsNeed(checkpointIndex({checkpoints: []}), false)).toEqual({min: 2, want: 2});
		const five = checkpointIndex({checkpoints: [1, 2, 3, 4, 5].map(i => checkpoint(100 * i, 10 - i))});
		expect(checkpointsNeed(five, false)).toEqual({min: 2, want: 6});
		expect(checkpointsNeed(five, true)).toEqual({min: 3, want: 7});
	});

	test('alerts: the title, then a line per level change', () => {
		expect(alertsNeed(0)).toEqual({min: 1, want: 1});
		expect(alertsNeed(3)).toEqual({min: 1, want: 4});
	});

	test('the registry: memory first and all it wants, the history the spare rows; checkpoints and alerts share the last band', () => {
		expect(SCREEN.map(band => band.panes.map(p => p.id))).toEqual([
			['memory'],
			['history'],
			['job'],
			['ranks'],
			['checkpoints', 'alerts'],
		]);
		expect(SCREEN[0]!.panes[0]!.firstRows).toBe(Number.POSITIVE_INFINITY);
		expect(SCREEN[1]!.panes[0]!.spare).toBe(true);
		expect(new Set(SCREEN.flatMap(band => band.panes.map(p => p.id))).size).toBe(6);
	});
});
