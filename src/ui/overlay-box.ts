import {columns, padEnd, truncate} from '../format/columns.js';

// Where a box (confirm, help, a send's result, the analysis) floats over the panes, and how big it
// is: pure, so that every terminal size can be checked in a table. The panes stay drawn under it and
// around it; the screen is at most rows − 1 lines with the key bar last, so the panes' area is
// rows − 2 lines, and a box at most rows − 3 tall leaves a line of them in sight.

/** A box's rectangle on the screen, border included: columns from the left, lines from the top. */
export interface BoxRect {
	readonly left: number;
	readonly top: number;
	readonly width: number;
	readonly height: number;
}

/**
 * Centred over the panes, or at the top: a send's result goes there so that the checkpoints pane,
 * which reports the save the send asked for, stays in sight below it.
 */
export type BoxPlace = 'centre' | 'top';

/** Border and a space of margin each side: what a box adds to its widest line. */
export const BOX_FRAME_COLUMNS = 4;
/** The top and bottom border. */
export const BOX_FRAME_ROWS = 2;

/** The largest box on a columns × rows screen: 2 columns of panes either side, a line of them below. */
export function maxBoxSize(screenColumns: number, screenRows: number): {width: number; height: number} {
	return {
		width: Math.max(BOX_FRAME_COLUMNS + 1, screenColumns - 4),
		height: Math.max(BOX_FRAME_ROWS + 1, screenRows - 3),
	};
}

/** The width a box needs for these lines: the widest one and the frame. */
export function boxWidthFor(lines: readonly string[]): number {
	return Math.max(0, ...lines.map(columns)) + BOX_FRAME_COLUMNS;
}

/**
 * The box for content `content.width` × `content.height` (frame included) on a columns × rows
 * screen: no bigger than the content, nor than maxBoxSize; centred across; down the panes' area
 * (rows − 2 lines, above the key bar) centred or at the top as `place` says.
 */
export function placeBox(
	screenColumns: number,
	screenRows: number,
	content: {readonly width: number; readonly height: number},
	place: BoxPlace = 'centre',
): BoxRect {
	const max = maxBoxSize(screenColumns, screenRows);
	const width = Math.max(BOX_FRAME_COLUMNS + 1, Math.min(Math.ceil(content.width), max.width));
	const height = Math.max(BOX_FRAME_ROWS + 1, Math.min(Math.ceil(content.height), max.height));
	const area = screenRows - 2;
	return {
		left: Math.max(0, Math.floor((screenColumns - width) / 2)),
		top: place === 'top' ? 0 : Math.max(0, Math.floor((area - height) / 2)),
		width,
		height,
	};
}

/**
 * One line inside a box `boxWidth` wide (border included): a space, the text cut or padded to the
 * text width, a space. Ink writes only the cells a line has, so a short line would let the pane
 * under the box show through at its end; this one covers every cell between the borders.
 */
export function boxLine(text: string, boxWidth: number): string {
	const room = Math.max(0, boxWidth - BOX_FRAME_COLUMNS);
	return ` ${padEnd(truncate(text, room), room)} `;
}
