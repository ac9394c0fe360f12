// What fits on the screen: a pure function of the terminal size and how much there is to show.
// The app calls it on every render (cheap) and hands each pane its box. The one hard rule:
// the screen is at most rows − 1 lines, because Ink clears and repaints the whole terminal
// (flicker) once a frame is as tall as the terminal (see shared/reference/ink-notes.md §4).

/** Below this the app shows only a "terminal too small" line. */
export const MIN_COLUMNS = 60;
export const MIN_ROWS = 15;
/** From this width checkpoints and alerts sit side by side. */
export const SPLIT_COLUMNS = 160;
/** Columns between side-by-side panes or packed gauges. */
export const GAP = 2;
/** Narrowest gauge worth drawing when several GPUs share a line: label, a bar, value and level. */
export const PACKED_GAUGE_MIN = 36;

/** Widths from which a pane shows its fuller form (see each pane's `compact` prop). */
const WIDE = {memory: 100, ranks: 110, checkpoints: 90, alerts: 70} as const;
/** Share of the rows the GPU gauges may take before they are packed several to a line. */
const MEMORY_SHARE = 0.35;
/** Rows each list gets before the others get theirs; the rest is shared out one row at a time. */
const FIRST_ROWS = {ranks: 8, checkpoints: 3, alerts: 3} as const;

/** How much each pane has to show. */
export interface LayoutCounts {
	/** GPU gauges; 0 when the GPU reader is absent, starting or failing (one status line). */
	readonly gpus: number;
	readonly ranks: number;
	readonly checkpoints: number;
	/** Recent level changes. */
	readonly alerts: number;
	/** False when there is no rank set to show (none found, scan failed, not sampled). */
	readonly ranksAvailable: boolean;
	/** False without a run dir. */
	readonly checkpointsAvailable: boolean;
	/** The checkpoints pane shows a save request's status line (CheckpointsPane's `status`). */
	readonly checkpointStatus?: boolean;
}

export interface PaneBox {
	/** Columns the pane may use. */
	readonly width: number;
	/** Lines the pane may use; it may use fewer. */
	readonly height: number;
	/** Narrow: the pane drops its optional columns. */
	readonly compact: boolean;
}

export interface MemoryBox extends PaneBox {
	/** GPU gauges per line: more than 1 when many GPUs would take too many rows one per line. */
	readonly gpuColumns: number;
	/** Columns of a gauge's sparkline (0 in compact form); a gauge drops it when it has no room. */
	readonly sparklineWidth: number;
}

export interface TooSmallLayout {
	readonly tooSmall: true;
	readonly columns: number;
	readonly rows: number;
	readonly minColumns: number;
	readonly minRows: number;
}

export interface ScreenLayout {
	readonly tooSmall: false;
	readonly columns: number;
	readonly rows: number;
	/** Checkpoints and alerts side by side (wide terminals), else one under the other. */
	readonly split: boolean;
	readonly memory: MemoryBox;
	readonly ranks: PaneBox;
	readonly checkpoints: PaneBox;
	readonly alerts: PaneBox;
	readonly keyBar: {readonly width: number; readonly height: 1};
	/** Lines the whole screen takes at most: never more than rows − 1. */
	readonly height: number;
}

export type Layout = TooSmallLayout | ScreenLayout;

/** Rows each pane needs at the least, and would like, as the panes draw them. */
interface Need {
	readonly min: number;
	readonly want: number;
}

// Pane shapes (kept in step with panes/*.tsx):
// memory: title, RAM, swap, then GPU lines (one status line when no GPU gauges);
// ranks: title (+launcher, SLURM), column header, one row per rank — or title and the reason;
// checkpoints: header, the save status when there is one, then one row per checkpoint (or "no
// checkpoints yet") — or header and the no-run-dir message;
// alerts: title (with the count), one line per level change.
function memoryNeed(gpus: number, gpuColumns: number): Need {
	const gpuLines = gpus === 0 ? 1 : Math.ceil(gpus / gpuColumns);
	return {min: 4, want: 3 + gpuLines};
}

function ranksNeed(counts: LayoutCounts): Need {
	if (!counts.ranksAvailable || counts.ranks === 0) return {min: 2, want: 2};
	return {min: 3, want: 2 + counts.ranks};
}

function checkpointsNeed(counts: LayoutCounts): Need {
	if (!counts.checkpointsAvailable) return {min: 2, want: 2};
	const status = counts.checkpointStatus ? 1 : 0;
	return {min: 2 + status, want: 1 + status + Math.max(1, counts.checkpoints)};
}

function alertsNeed(counts: LayoutCounts): Need {
	return {min: 1, want: 1 + counts.alerts};
}

/** GPU gauges per line: the fewest that keep the GPU lines within their share of the rows. */
function gpuColumnsFor(gpus: number, width: number, budget: number): number {
	const most = Math.max(1, Math.floor((width + GAP) / (PACKED_GAUGE_MIN + GAP)));
	const targetLines = Math.max(1, Math.floor(budget * MEMORY_SHARE) - 3);
	let columns = 1;
	while (columns < most && Math.ceil(gpus / columns) > targetLines) columns++;
	return columns;
}

function sparklineWidthFor(width: number): number {
	if (width < WIDE.memory) return 0;
	return Math.min(32, Math.max(10, Math.floor(width / 6)));
}

type Slot = 'memory' | 'ranks' | 'lower' | 'alerts';

/**
 * Shares `budget` rows: every pane its minimum, the memory gauges all they want (they are the
 * point of the tool), then each list a first helping in order of importance, then the rest one
 * row at a time in turn, so that 500 ranks cannot crowd out the checkpoints.
 */
function share(budget: number, needs: Readonly<Partial<Record<Slot, Need>>>, first: Readonly<Partial<Record<Slot, number>>>): Record<Slot, number> {
	const slots = (Object.keys(needs) as Slot[]).filter(slot => needs[slot] !== undefined);
	const rows: Record<Slot, number> = {memory: 0, ranks: 0, lower: 0, alerts: 0};
	let left = budget;
	for (const slot of slots) {
		rows[slot] = needs[slot]!.min;
		left -= rows[slot];
	}
	const grow = (slot: Slot, upTo: number) => {
		const add = Math.max(0, Math.min(left, upTo - rows[slot]));
		rows[slot] += add;
		left -= add;
	};
	if (needs.memory) grow('memory', needs.memory.want);
	for (const slot of slots) {
		const extra = first[slot];
		if (extra !== undefined) grow(slot, Math.min(needs[slot]!.want, needs[slot]!.min + extra));
	}
	const lists = slots.filter(slot => slot !== 'memory');
	let growing = true;
	while (left > 0 && growing) {
		growing = false;
		for (const slot of lists) {
			if (left > 0 && rows[slot] < needs[slot]!.want) {
				rows[slot]++;
				left--;
				growing = true;
			}
		}
	}
	return rows;
}

/**
 * Decides each pane's box for a terminal of `columns` × `rows`. Below MIN_COLUMNS × MIN_ROWS
 * the answer is `tooSmall`. Otherwise every pane gets at least its minimum (title plus one line),
 * and the screen including the key bar is at most rows − 1 lines.
 */
export function computeLayout(columns: number, rows: number, counts: LayoutCounts): Layout {
	const cols = Math.floor(columns);
	const lines = Math.floor(rows);
	if (!(cols >= MIN_COLUMNS && lines >= MIN_ROWS)) {
		return {tooSmall: true, columns: cols, rows: lines, minColumns: MIN_COLUMNS, minRows: MIN_ROWS};
	}
	const keyBarRows = 1;
	const budget = lines - 1 - keyBarRows;
	const split = cols >= SPLIT_COLUMNS;
	const gpuColumns = counts.gpus > 0 ? gpuColumnsFor(counts.gpus, cols, budget) : 1;
	const memory = memoryNeed(counts.gpus, gpuColumns);
	const ranks = ranksNeed(counts);
	const checkpoints = checkpointsNeed(counts);
	const alerts = alertsNeed(counts);

	let heights: {memory: number; ranks: number; checkpoints: number; alerts: number};
	let checkpointsWidth = cols;
	let alertsWidth = cols;
	if (split) {
		// Side by side, checkpoints and alerts share one band as tall as the taller wants.
		const band: Need = {min: Math.max(checkpoints.min, alerts.min), want: Math.max(checkpoints.want, alerts.want)};
		const got = share(budget, {memory, ranks, lower: band}, {ranks: FIRST_ROWS.ranks, lower: FIRST_ROWS.checkpoints});
		heights = {memory: got.memory, ranks: got.ranks, checkpoints: got.lower, alerts: got.lower};
		checkpointsWidth = Math.ceil((cols - GAP) * 0.6);
		alertsWidth = cols - GAP - checkpointsWidth;
	} else {
		const got = share(
			budget,
			{memory, ranks, lower: checkpoints, alerts},
			{ranks: FIRST_ROWS.ranks, lower: FIRST_ROWS.checkpoints, alerts: FIRST_ROWS.alerts},
		);
		heights = {memory: got.memory, ranks: got.ranks, checkpoints: got.lower, alerts: got.alerts};
	}
	const lowerHeight = split ? heights.checkpoints : heights.checkpoints + heights.alerts;
	return {
		tooSmall: false,
		columns: cols,
		rows: lines,
		split,
		memory: {
			width: cols,
			height: heights.memory,
			compact: cols < WIDE.memory,
			gpuColumns,
			sparklineWidth: sparklineWidthFor(cols),
		},
		ranks: {width: cols, height: heights.ranks, compact: cols < WIDE.ranks},
		checkpoints: {width: checkpointsWidth, height: heights.checkpoints, compact: checkpointsWidth < WIDE.checkpoints},
		alerts: {width: alertsWidth, height: heights.alerts, compact: alertsWidth < WIDE.alerts},
		keyBar: {width: cols, height: 1},
		height: heights.memory + heights.ranks + lowerHeight + keyBarRows,
	};
}
