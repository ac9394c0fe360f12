import {GAP} from '../panes/pane.js';

// How the history pane arranges its charts: stacked while each still gets a readable height, side by
// side when the rows run short, and with too many charts for the room the GPUs become one chart of
// their highest (an out-of-memory is decided by the fullest device). Pure, table-tested.

/** Rows of a chart besides its plot: its title, the time rule with the marks, the time labels. */
export const CHART_FRAME_ROWS = 3;
/** Narrowest chart worth drawing: y scale, a plot a time axis can label. */
const MIN_CHART_WIDTH = 36;
/** Stacked charts get at least this many plot rows before the pane puts them side by side. */
const COMFORTABLE_PLOT_ROWS = 4;

export interface ChartGrid {
	readonly columns: number;
	/** Each chart's columns, left to right in a grid row (the last takes the rest). */
	readonly widths: readonly number[];
	/** Each grid row's height in lines, top first; together they fill `rows`. */
	readonly heights: readonly number[];
}

function widthsFor(columns: number, width: number): number[] {
	const each = Math.floor((width - GAP * (columns - 1)) / columns);
	return Array.from({length: columns}, (_, i) => (i === columns - 1 ? width - (each + GAP) * (columns - 1) : each));
}

function heightsFor(gridRows: number, rows: number): number[] {
	const each = Math.floor(rows / gridRows);
	return Array.from({length: gridRows}, (_, i) => each + (i < rows - each * gridRows ? 1 : 0));
}

/**
 * The grid for `count` charts in `width` × `rows`: the fewest columns that give every chart the
 * comfortable height; failing that, the arrangement with the tallest charts that still have a plot
 * row; null when none fits (fewer charts, then).
 */
export function chartGrid(count: number, width: number, rows: number): ChartGrid | null {
	if (count <= 0) return null;
	let fallback: ChartGrid | null = null;
	let fallbackHeight = 0;
	for (let columns = 1; columns <= count; columns++) {
		const widths = widthsFor(columns, width);
		if (Math.min(...widths) < MIN_CHART_WIDTH) break;
		const gridRows = Math.ceil(count / columns);
		const heights = heightsFor(gridRows, rows);
		const shortest = Math.min(...heights);
		if (shortest < CHART_FRAME_ROWS + 1) continue;
		const grid = {columns, widths, heights};
		if (shortest >= CHART_FRAME_ROWS + COMFORTABLE_PLOT_ROWS) return grid;
		if (shortest > fallbackHeight) {
			fallback = grid;
			fallbackHeight = shortest;
		}
	}
	return fallback;
}
