import type {ScreenData} from './screen-data.js';
import {type Band, GAP, type Need, type PaneBox, type PaneDefinition} from './panes/pane.js';
import {SCREEN} from './panes/registry.js';

// What fits on the screen: a pure function of the terminal size, the panes (each declares its own
// needs) and what there is to show. The app calls it on every render (cheap) and hands each pane
// its box. The one hard rule: the screen is at most rows − 1 lines, because Ink clears and repaints
// the whole terminal (a visible flicker) once a frame is as tall as the terminal.

/** Below this the app shows only a "terminal too small" line. */
export const MIN_COLUMNS = 60;
export const MIN_ROWS = 15;

export interface TooSmallLayout {
	readonly tooSmall: true;
	readonly columns: number;
	readonly rows: number;
	readonly minColumns: number;
	readonly minRows: number;
}

export interface LaidOutBand<D = ScreenData> {
	readonly sideBySide: boolean;
	readonly panes: readonly {readonly pane: PaneDefinition<D>; readonly box: PaneBox}[];
}

/** The screen laid out; `D` is the data its panes draw (ScreenData, or the many-node screen's). */
export interface ScreenLayout<D = ScreenData> {
	readonly tooSmall: false;
	readonly columns: number;
	readonly rows: number;
	/** The bands top to bottom, each pane with its box. */
	readonly bands: readonly LaidOutBand<D>[];
	/** Each pane's box by its id. */
	readonly boxes: Readonly<Record<string, PaneBox>>;
	/** Some band has its panes side by side (wide terminals). */
	readonly split: boolean;
	readonly keyBar: {readonly width: number; readonly height: 1};
	/** Lines the whole screen takes at most: never more than rows − 1. */
	readonly height: number;
}

export type Layout<D = ScreenData> = TooSmallLayout | ScreenLayout<D>;

interface Slot<D> {
	readonly panes: readonly PaneDefinition<D>[];
	readonly widths: readonly number[];
	readonly need: Need;
	readonly firstRows: number;
	readonly spare: boolean;
}

/** The widths of a band's panes side by side: each its share, the last the rest, GAP between. */
function sideBySideWidths<D>(band: Band<D>, columns: number): number[] {
	const room = columns - GAP * (band.panes.length - 1);
	const widths = band.panes.slice(0, -1).map((_, i) => Math.ceil(room * (band.shares?.[i] ?? 1 / band.panes.length)));
	return [...widths, room - widths.reduce((a, b) => a + b, 0)];
}

/** One slot per pane, or one per side-by-side band, as tall as the tallest of its panes wants. */
function slotsFor<D>(bands: readonly Band<D>[], columns: number, budget: number, data: D): Slot<D>[] {
	const slots: Slot<D>[] = [];
	for (const band of bands) {
		const sideBySide = band.panes.length > 1 && band.sideBySideFrom !== undefined && columns >= band.sideBySideFrom;
		if (!sideBySide) {
			for (const pane of band.panes) {
				slots.push({
					panes: [pane],
					widths: [columns],
					need: pane.need(data, {width: columns, budget}),
					firstRows: pane.firstRows,
					spare: pane.spare ?? false,
				});
			}
			continue;
		}
		const widths = sideBySideWidths(band, columns);
		const needs = band.panes.map((pane, i) => pane.need(data, {width: widths[i]!, budget}));
		slots.push({
			panes: band.panes,
			widths,
			need: {min: Math.max(...needs.map(n => n.min)), want: Math.max(...needs.map(n => n.want))},
			firstRows: Math.max(...band.panes.map(p => p.firstRows)),
			spare: band.panes.every(p => p.spare ?? false),
		});
	}
	return slots;
}

/**
 * Shares `budget` rows: every slot its minimum, then each its first helping in order (the memory
 * gauges all they want: they are the point of the tool), then the rest one row at a time in turn,
 * so that 500 ranks cannot crowd out the checkpoints — a spare slot (the history) last in each turn.
 */
function share(
	budget: number,
	slots: readonly {readonly need: Need; readonly firstRows: number; readonly spare?: boolean}[],
): number[] {
	const rows = slots.map(slot => slot.need.min);
	let left = budget - rows.reduce((a, b) => a + b, 0);
	slots.forEach((slot, i) => {
		const add = Math.max(0, Math.min(left, Math.min(slot.need.want, slot.need.min + slot.firstRows) - rows[i]!));
		rows[i]! += add;
		left -= add;
	});
	const turn = [...slots.keys()].sort((a, b) => Number(slots[a]!.spare ?? false) - Number(slots[b]!.spare ?? false));
	let growing = true;
	while (left > 0 && growing) {
		growing = false;
		for (const i of turn) {
			if (left > 0 && rows[i]! < slots[i]!.need.want) {
				rows[i]!++;
				left--;
				growing = true;
			}
		}
	}
	return rows;
}

/** The "too small" answer for a terminal below MIN_COLUMNS × MIN_ROWS, else null. */
export function tooSmallFor(columns: number, rows: number): TooSmallLayout | null {
	const cols = Math.floor(columns);
	const lines = Math.floor(rows);
	if (cols >= MIN_COLUMNS && lines >= MIN_ROWS) return null;
	return {tooSmall: true, columns: cols, rows: lines, minColumns: MIN_COLUMNS, minRows: MIN_ROWS};
}

/**
 * Decides each pane's box for a terminal of `columns` × `rows`. Below MIN_COLUMNS × MIN_ROWS the
 * answer is `tooSmall`. Otherwise every pane gets at least its minimum, and the screen including
 * the key bar is at most rows − 1 lines.
 */
export function computeLayout(
	columns: number,
	rows: number,
	data: ScreenData,
	bands: readonly Band[] = SCREEN,
): Layout {
	return layoutBands(columns, rows, data, bands);
}

/** computeLayout for any screen's bands: the many-node screen's panes draw data of their own shape. */
export function layoutBands<D>(columns: number, rows: number, data: D, bands: readonly Band<D>[]): Layout<D> {
	const tooSmall = tooSmallFor(columns, rows);
	if (tooSmall) return tooSmall;
	const cols = Math.floor(columns);
	const lines = Math.floor(rows);
	const keyBarRows = 1;
	const budget = lines - 1 - keyBarRows;
	const slots = slotsFor(bands, cols, budget, data);
	const heights = share(budget, slots);
	const laidOut: LaidOutBand<D>[] = slots.map((slot, i) => ({
		sideBySide: slot.panes.length > 1,
		panes: slot.panes.map((pane, j) => {
			const width = slot.widths[j]!;
			return {pane, box: {width, height: heights[i]!, compact: width < pane.wideFrom, budget}};
		}),
	}));
	const boxes: Record<string, PaneBox> = {};
	for (const band of laidOut) for (const {pane, box} of band.panes) boxes[pane.id] = box;
	return {
		tooSmall: false,
		columns: cols,
		rows: lines,
		bands: laidOut,
		boxes,
		split: laidOut.some(band => band.sideBySide),
		keyBar: {width: cols, height: 1},
		height: heights.reduce((a, b) => a + b, 0) + keyBarRows,
	};
}
