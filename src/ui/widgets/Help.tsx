import React from 'react';
import {Text} from 'ink';
import FloatingBox from './FloatingBox.js';
import {boxTextWidth, helpRows} from '../box-text.js';
import {BOX_FRAME_ROWS, boxLine, boxWidthFor, maxBoxSize, placeBox} from '../overlay-box.js';
import {clampScroll} from '../scroll.js';

export interface KeyHelp {
	/** As the user types it: `q`, `↑↓ j k`, `space`. */
	readonly keys: string;
	readonly description: string;
}

export interface Props {
	/** The keys to list, in order (the app passes its keymap, without the actions --readonly removes). */
	readonly entries: readonly KeyHelp[];
	/** Columns of the screen the box floats over, centred; it is as wide as its lines need, at most width − 4. */
	readonly width: number;
	/**
	 * Lines of the screen the box floats over; the box is at most height − 3 of them, and scrolls beyond. Every
	 * description is wrapped whole in its column beside the keys.
	 */
	readonly height: number;
	readonly title?: string;
	/** Lines after the keys (the signal marks' legend). */
	readonly notes?: readonly string[];
	/** First row shown when the list is taller than the box (clamped so the last page stays full). */
	readonly scroll?: number;
}

/** The title, besides the border. */
const FIXED_ROWS = BOX_FRAME_ROWS + 1;

/** A bordered box listing keys, floating over the panes; it only renders (Esc and ? are the app's). */
function Help({entries, width, height, title = 'Keys', notes = [], scroll = 0}: Props) {
	const lines = helpRows(entries, notes, boxTextWidth(width, height));
	const rows = Math.max(0, Math.min(lines.length, maxBoxSize(width, height).height - FIXED_ROWS));
	const first = clampScroll(scroll, lines.length, rows);
	const shown = lines.slice(first, first + rows);
	// Which lines are shown, when not all: the list goes on past the box's edge.
	const more = lines.length > rows ? ` (lines ${first + 1}–${first + shown.length} of ${lines.length})` : '';
	const box = placeBox(width, height, {width: boxWidthFor([title + more, ...lines]), height: rows + FIXED_ROWS});
	return (
		<FloatingBox box={box} screenColumns={width}>
			<Text bold wrap="truncate-end">
				{boxLine(title + more, box.width)}
			</Text>
			{shown.map((line, i) => (
				<Text key={first + i} wrap="truncate-end">
					{boxLine(line, box.width)}
				</Text>
			))}
		</FloatingBox>
	);
}

export default React.memo(Help);
