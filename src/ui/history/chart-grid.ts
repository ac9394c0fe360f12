import {GAP} from '../panes/pane.js';

// How the history pane arranges its charts: stacked or side by side, whichever gives each chart the
// most room to read (time across, a useful height); with too many charts for the room the pane makes the
// GPUs one chart of their highest (an out-of-memory is decided by the fullest device). Pure, table-tested.

/** Rows of a chart besides its plot: its title, the time rule with the marks, the time labels. */
export const CHART_FRAME_ROWS = 3;
/** Narrowest chart worth drawing: y scale, a plot a time axis can label. */
const MIN_CHART_WIDTH = 36;

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

/** Plot rows beyond this add little to reading a chart; width (time) keeps helping. */
const USEFUL_PLOT_ROWS = 10;

/**
 * The grid for `count` charts in `width` × `rows` whose every chart has at least `minPlotRows` plot
 * rows: of those, the one with the most plot area that helps (width × height up to 10 rows), the
 * fewest columns on a tie; null when none fits (fewer charts, then).
 */
export function chartGrid(count: number, width: number, rows: number, minPlotRows = 1): ChartGrid | null {
	if (count <= 0) return null;
	let best: ChartGrid | null = null;
	let bestScore = 0;
	for (let columns = 1; columns <= count; columns++) {
		const widths = widthsFor(columns, width);
		if (Math.min(...widths) < MIN_CHART_WIDTH) break;
		const heights = heightsFor(Math.ceil(count / columns), rows);
		const plotRows = Math.min(...heights) - CHART_FRAME_ROWS;
		if (plotRows < minPlotRows) continue;
		const score = Math.min(...widths) * Math.min(plotRows, USEFUL_PLOT_ROWS);
		if (score > bestScore) {
			best = {columns, widths, heights};
			bestScore = score;
		}
	}
	return best;
}
