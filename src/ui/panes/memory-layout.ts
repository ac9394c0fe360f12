import {GAP, type Need} from './pane.js';

// The memory pane's own geometry: how many GPU gauges share a line, how wide the sparklines are,
// and the rows it asks for. Pure, so the layout tests check it without rendering.

/** Narrowest gauge worth drawing when several GPUs share a line: label, a bar, value and level. */
const PACKED_GAUGE_MIN = 36;
/** From this width the gauges carry sparklines. */
export const MEMORY_WIDE = 100;
/** Share of the rows the GPU gauges may take before they are packed several to a line. */
const MEMORY_SHARE = 0.35;

/** GPU gauges per line: the fewest that keep the GPU lines within their share of the rows. */
export function gpuColumnsFor(gpus: number, width: number, budget: number): number {
	if (gpus === 0) return 1;
	const most = Math.max(1, Math.floor((width + GAP) / (PACKED_GAUGE_MIN + GAP)));
	const targetLines = Math.max(1, Math.floor(budget * MEMORY_SHARE) - 3);
	let columns = 1;
	while (columns < most && Math.ceil(gpus / columns) > targetLines) columns++;
	return columns;
}

/** Columns of a gauge's sparkline: none in the compact form. */
export function sparklineWidthFor(width: number): number {
	if (width < MEMORY_WIDE) return 0;
	return Math.min(32, Math.max(10, Math.floor(width / 6)));
}

/** Title, RAM, swap, then the GPU lines (one status line when there are no GPU gauges). */
export function memoryNeed(gpus: number, gpuColumns: number): Need {
	const gpuLines = gpus === 0 ? 1 : Math.ceil(gpus / gpuColumns);
	return {min: 4, want: 3 + gpuLines};
}
