import React from 'react';
import {Text} from 'ink';
import FloatingBox from './FloatingBox.js';
import {boxTextWidth, wrapLines} from '../box-text.js';
import {BOX_FRAME_ROWS, type BoxPlace, boxLine, boxWidthFor, maxBoxSize, placeBox} from '../overlay-box.js';
import {clampScroll} from '../scroll.js';

export interface Props {
	readonly title: string;
	/** The body, each line wrapped whole to the box; only the rows from `scroll` that fit are drawn. */
	readonly lines: readonly string[];
	/** First body row shown (clamped so the last page stays full). */
	readonly scroll?: number;
	/** The last line: how to close or scroll. */
	readonly footer: string;
	/** Columns of the screen the box floats over; the box is as wide as its text needs, at most width − 4. */
	readonly width: number;
	/** Lines of the screen the box floats over; the box is as tall as its text needs, at most height − 3. */
	readonly height: number;
	/** Centred over the panes (the default), or at the top of the screen. */
	readonly place?: BoxPlace;
}

/** Title and footer, besides the border. */
const FIXED_ROWS = BOX_FRAME_ROWS + 2;

/**
 * A bordered, scrollable box of text floating over the panes: a signal's outcomes, the analysis
 * report. It only renders.
 */
function TextBox({title, lines: text, scroll = 0, footer, width, height, place = 'centre'}: Props) {
	const lines = wrapLines(text, boxTextWidth(width, height));
	const rows = Math.max(0, Math.min(lines.length, maxBoxSize(width, height).height - FIXED_ROWS));
	const first = clampScroll(scroll, lines.length, rows);
	const shown = lines.slice(first, first + rows);
	const more = lines.length > rows ? ` (lines ${first + 1}–${first + shown.length} of ${lines.length})` : '';
	const box = placeBox(
		width,
		height,
		{width: boxWidthFor([title + more, ...lines, footer]), height: rows + FIXED_ROWS},
		place,
	);
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
			<Text dimColor wrap="truncate-end">
				{boxLine(footer, box.width)}
			</Text>
		</FloatingBox>
	);
}

export default React.memo(TextBox);
