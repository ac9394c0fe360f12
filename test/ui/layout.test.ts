import {describe, expect, test} from 'vitest';
import fc from 'fast-check';
import {computeLayout as layoutOf, type Layout, MIN_COLUMNS, MIN_ROWS, type ScreenLayout} from '../../src/ui/layout.js';
import {GAP} from '../../src/ui/panes/pane.js';
import {type LayoutCounts, type Panes, panesOf, screenData} from './screen-data.js';

// The layout of the real pane registry (each pane's own need()), for so much data on so large a screen.
type Laid = Omit<ScreenLayout, 'bands' | 'boxes'> & Panes;
type Computed = Laid | Extract<Layout, {tooSmall: true}>;

function computeLayout(columns: number, rows: number, counts: LayoutCounts): Computed {
	const layout = layoutOf(columns, rows, screenData(counts));
	return layout.tooSmall ? layout : {...layout, ...panesOf(layout, counts)};
}

const typical: LayoutCounts = {
	gpus: 1,
	ranks: 8,
	checkpoints: 5,
	alerts: 3,
	ranksAvailable: true,
	checkpointsAvailable: true,
};

function screen(layout: Computed): Laid {
	if (layout.tooSmall) throw new Error(`expected a screen layout, got tooSmall at ${layout.columns}×${layout.rows}`);
	return layout;
}

/** Lines the panes take, counted independently of layout.height. */
function linesUsed(layout: Laid): number {
	const lower = layout.split
		? Math.max(layout.checkpoints.height, layout.alerts.height)
		: layout.checkpoints.height + layout.alerts.height;
	return layout.memory.height + layout.history.height + layout.ranks.height + lower + layout.keyBar.height;
}

describe('computeLayout: too small', () => {
	test.each([
		[59, 15],
		[60, 14],
		[59, 40],
		[200, 14],
		[0, 0],
	])('%i×%i is too small', (columns, rows) => {
		expect(computeLayout(columns, rows, typical)).toEqual({
			tooSmall: true,
			columns,
			rows,
			minColumns: MIN_COLUMNS,
			minRows: MIN_ROWS,
		});
	});

	test('60×15 is the smallest screen, and every pane gets its title and a line', () => {
		const layout = screen(computeLayout(60, 15, typical));
		expect(layout.height).toBeLessThanOrEqual(14);
		expect(layout.memory.height).toBe(4); // title, RAM, swap, GPU0
		expect(layout.ranks.height).toBeGreaterThanOrEqual(3);
		expect(layout.checkpoints.height).toBeGreaterThanOrEqual(2);
		expect(layout.alerts.height).toBeGreaterThanOrEqual(1);
	});
});

describe('computeLayout: sizes', () => {
	// columns, rows → split, memory compact, sparkline width, ranks compact
	test.each([
		[60, 15, false, true, 0, true],
		[80, 24, false, true, 0, true],
		[100, 30, false, false, 16, true],
		[120, 40, false, false, 20, false],
		[200, 60, true, false, 32, false],
	])(
		'%i×%i: split %s, memory compact %s, sparklines %i, ranks compact %s',
		(columns, rows, split, memoryCompact, sparklineWidth, ranksCompact) => {
			const layout = screen(computeLayout(columns, rows, typical));
			expect(layout.split).toBe(split);
			expect(layout.memory.compact).toBe(memoryCompact);
			expect(layout.memory.sparklineWidth).toBe(sparklineWidth);
			expect(layout.ranks.compact).toBe(ranksCompact);
			expect(layout.height).toBeLessThanOrEqual(rows - 1);
			expect(layout.keyBar).toEqual({width: columns, height: 1});
		},
	);

	test('80×24: every pane shows all it has in compact form', () => {
		const layout = screen(computeLayout(80, 24, {...typical, checkpoints: 4, alerts: 2}));
		expect(layout.memory).toMatchObject({height: 4, width: 80, compact: true, gpuColumns: 1});
		expect(layout.ranks).toMatchObject({height: 2 + 8, compact: true}); // title, header, 8 ranks
		expect(layout.checkpoints).toMatchObject({height: 1 + 4, compact: true}); // header, 4 rows
		expect(layout.alerts.height).toBe(1 + 2); // title, 2 alerts (an alert line fits 80 columns in full)
		expect(layout.height).toBe(23);
	});

	test('80×24 one row short: the first helpings go to ranks, then checkpoints, then alerts', () => {
		const layout = screen(computeLayout(80, 24, {...typical, checkpoints: 5, alerts: 3}));
		expect(layout.ranks.height).toBe(2 + 8);
		expect(layout.checkpoints.height).toBe(1 + 4); // min 2 + 3: one checkpoint goes under "+N older"
		expect(layout.alerts.height).toBe(1 + 2);
		expect(layout.height).toBe(23);
	});

	test('80×24 with lists longer than the screen: each still gets rows, the total stays at 23', () => {
		const layout = screen(computeLayout(80, 24, {...typical, ranks: 64, checkpoints: 50, alerts: 50}));
		expect(layout.height).toBe(23);
		expect(layout.ranks.height).toBeGreaterThanOrEqual(2 + 8);
		expect(layout.checkpoints.height).toBeGreaterThanOrEqual(2);
		expect(layout.alerts.height).toBeGreaterThanOrEqual(2);
	});

	test('120×40 has more rows for long lists than 80×24', () => {
		const counts = {...typical, ranks: 64, checkpoints: 50, alerts: 50};
		const small = screen(computeLayout(80, 24, counts));
		const large = screen(computeLayout(120, 40, counts));
		expect(large.ranks.height).toBeGreaterThan(small.ranks.height);
		expect(large.checkpoints.height + large.alerts.height).toBeGreaterThan(
			small.checkpoints.height + small.alerts.height,
		);
		expect(large.height).toBe(39);
	});

	test('200×60 puts checkpoints and alerts side by side, both in full form', () => {
		const layout = screen(computeLayout(200, 60, {...typical, checkpoints: 30, alerts: 30}));
		expect(layout.split).toBe(true);
		expect(layout.checkpoints.width + GAP + layout.alerts.width).toBe(200);
		expect(layout.checkpoints.height).toBe(layout.alerts.height);
		expect(layout.checkpoints.compact).toBe(false);
		expect(layout.alerts.compact).toBe(false);
		expect(layout.height).toBe(
			layout.memory.height + layout.history.height + layout.ranks.height + layout.checkpoints.height + 1,
		);
		expect(layout.height).toBe(59);
	});

	test('a save status line gets its own row', () => {
		const without = screen(computeLayout(80, 40, typical));
		const withStatus = screen(computeLayout(80, 40, {...typical, checkpointStatus: true}));
		expect(withStatus.checkpoints.height).toBe(without.checkpoints.height + 1);
		expect(withStatus.checkpoints.height).toBe(1 + 1 + 5);
	});

	test('500 ranks do not crowd out the checkpoints and alerts', () => {
		const layout = screen(computeLayout(100, 30, {...typical, ranks: 500, checkpoints: 10, alerts: 10}));
		expect(layout.checkpoints.height).toBeGreaterThanOrEqual(1 + 3);
		expect(layout.alerts.height).toBeGreaterThanOrEqual(1 + 3);
		expect(layout.height).toBe(29);
	});

	test('nothing to list: the panes take their one message line and the history charts the rest', () => {
		const layout = screen(
			computeLayout(100, 30, {
				gpus: 0,
				ranks: 0,
				checkpoints: 0,
				alerts: 0,
				ranksAvailable: false,
				checkpointsAvailable: false,
			}),
		);
		expect(layout.memory.height).toBe(4); // title, RAM, swap, the GPU reader's reason
		expect(layout.ranks.height).toBe(2);
		expect(layout.checkpoints.height).toBe(2);
		expect(layout.alerts.height).toBe(1);
		expect(layout.history.height).toBe(29 - 10);
		expect(layout.height).toBe(29);
	});
});

describe('computeLayout: many GPUs', () => {
	test('8 GPUs at 80×24 are packed two a line so the lists keep their rows', () => {
		const layout = screen(computeLayout(80, 24, {...typical, gpus: 8}));
		expect(layout.memory.gpuColumns).toBe(2);
		expect(layout.memory.height).toBe(3 + 4);
		expect(layout.ranks.height).toBeGreaterThanOrEqual(3);
	});

	test('8 GPUs at 120×40 get a line each, with sparklines', () => {
		const layout = screen(computeLayout(120, 40, {...typical, gpus: 8}));
		expect(layout.memory.gpuColumns).toBe(1);
		expect(layout.memory.height).toBe(3 + 8);
		expect(layout.memory.sparklineWidth).toBeGreaterThan(0);
	});

	test('64 GPUs on a small screen: the memory pane is capped, every other pane keeps its minimum', () => {
		const layout = screen(computeLayout(60, 15, {...typical, gpus: 64}));
		expect(layout.height).toBeLessThanOrEqual(14);
		expect(layout.ranks.height).toBeGreaterThanOrEqual(3);
		expect(layout.checkpoints.height).toBeGreaterThanOrEqual(2);
		expect(layout.alerts.height).toBeGreaterThanOrEqual(1);
	});
});

describe('computeLayout: invariants', () => {
	const counts = fc.record({
		gpus: fc.integer({min: 0, max: 128}),
		ranks: fc.integer({min: 0, max: 2048}),
		checkpoints: fc.integer({min: 0, max: 500}),
		alerts: fc.integer({min: 0, max: 50}),
		ranksAvailable: fc.boolean(),
		checkpointsAvailable: fc.boolean(),
		checkpointStatus: fc.boolean(),
	});

	test('never taller than rows − 1, never wider than the terminal, every pane at least its title', () => {
		fc.assert(
			fc.property(fc.integer({min: 0, max: 400}), fc.integer({min: 0, max: 200}), counts, (columns, rows, c) => {
				const layout = computeLayout(columns, rows, c);
				if (columns < MIN_COLUMNS || rows < MIN_ROWS) {
					expect(layout.tooSmall).toBe(true);
					return;
				}
				const s = screen(layout);
				expect(s.height).toBe(linesUsed(s));
				// Every row is used (the history takes what the other panes do not want), never the last.
				expect(s.height).toBe(Math.floor(rows) - 1);
				expect(s.memory.height).toBeGreaterThanOrEqual(4);
				expect(s.ranks.height).toBeGreaterThanOrEqual(2);
				expect(s.checkpoints.height).toBeGreaterThanOrEqual(2);
				expect(s.alerts.height).toBeGreaterThanOrEqual(1);
				for (const pane of [s.memory, s.ranks, s.checkpoints, s.alerts, s.keyBar]) {
					expect(pane.width).toBeGreaterThan(0);
					expect(pane.width).toBeLessThanOrEqual(columns);
				}
				if (s.split) expect(s.checkpoints.width + GAP + s.alerts.width).toBe(columns);
				expect(s.memory.gpuColumns).toBeGreaterThanOrEqual(1);
			}),
			{numRuns: 2000},
		);
	});

	test('a sweep of every size from 60×15 to 220×70 with large counts', () => {
		const big: LayoutCounts = {
			gpus: 16,
			ranks: 256,
			checkpoints: 100,
			alerts: 50,
			ranksAvailable: true,
			checkpointsAvailable: true,
		};
		for (let columns = 60; columns <= 220; columns += 7) {
			for (let rows = 15; rows <= 70; rows++) {
				const s = screen(computeLayout(columns, rows, big));
				expect(s.height, `${columns}×${rows}`).toBe(rows - 1);
			}
		}
	});

	test('a taller terminal never shows less (GPUs may unpack and take rows from the lists)', () => {
		fc.assert(
			fc.property(fc.integer({min: 60, max: 400}), fc.integer({min: 15, max: 100}), counts, (columns, rows, c) => {
				const before = screen(computeLayout(columns, rows, c));
				const after = screen(computeLayout(columns, rows + 1, c));
				expect(after.height).toBeGreaterThanOrEqual(before.height);
				if (after.memory.gpuColumns === before.memory.gpuColumns) {
					expect(after.ranks.height).toBeGreaterThanOrEqual(before.ranks.height);
					expect(after.checkpoints.height).toBeGreaterThanOrEqual(before.checkpoints.height);
					expect(after.alerts.height).toBeGreaterThanOrEqual(before.alerts.height);
				}
			}),
			{numRuns: 1000},
		);
	});
});
