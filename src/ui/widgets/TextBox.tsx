import React from 'react';
import {Box, Text} from 'ink';
import {clampScroll} from '../scroll.js';

export interface Props {
	readonly title: string;
	/** The body; only the lines from `scroll` that fit are drawn. */
	readonly lines: readonly string[];
	/** First body line shown (clamped so the last page stays full). */
	readonly scroll?: number;
	/** The last line: how to close or scroll. */
	readonly footer: string;
	/** Columns of the box, border included. */
	readonly width: number;
	/** Lines of the box, border included. */
	readonly height: number;
}

/** Border (2), title and footer. */
const FIXED_ROWS = 4;

/** A bordered, scrollable box of text: a signal's outcomes, the analysis report. It only renders. */
function TextBox({title, lines, scroll = 0, footer, width, height}: Props) {
	const rows = Math.max(0, height - FIXED_ROWS);
	const first = clampScroll(scroll, lines.length, rows);
	const shown = lines.slice(first, first + rows);
	const more = lines.length > rows ? ` (lines ${first + 1}–${first + shown.length} of ${lines.length})` : '';
	return (
		<Box flexDirection="column" borderStyle="round" paddingX={1} width={width}>
			<Text bold wrap="truncate-end">
				{title}
				{more}
			</Text>
			{shown.map((line, i) => (
				<Text key={first + i} wrap="truncate-end">
					{line === '' ? ' ' : line}
				</Text>
			))}
			<Text dimColor wrap="truncate-end">
				{footer}
			</Text>
		</Box>
	);
}

export default React.memo(TextBox);
