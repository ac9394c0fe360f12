/** The rows [start, end) of a list that are drawn. */
export interface ScrollWindow {
	readonly start: number;
	readonly end: number;
}

/**
 * Which `visible` of `count` rows to draw so that the cursor row is one of them. The window is
 * centred on the cursor and kept inside the list; it is computed from the cursor alone, so the
 * pane needs no scroll state of its own.
 */
export function scrollWindow(count: number, cursor: number, visible: number): ScrollWindow {
	const size = Math.max(0, Math.min(count, Math.floor(visible)));
	if (size === 0) return {start: 0, end: 0};
	const at = Math.min(count - 1, Math.max(0, Math.floor(cursor)));
	const start = Math.min(count - size, Math.max(0, at - Math.floor(size / 2)));
	return {start, end: start + size};
}

/** The first line of a text box to show so that `scroll` is honoured and the box is never half empty at the end. */
export function clampScroll(scroll: number, lines: number, rows: number): number {
	return Math.max(0, Math.min(scroll, lines - rows));
}
