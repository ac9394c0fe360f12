import type React from 'react';
import {Box, Text} from 'ink';
import type {BoxRect} from '../overlay-box.js';

export interface Props {
	/** Where it floats and how big it is (overlay-box.ts placeBox). */
	readonly box: BoxRect;
	/** Columns of the screen it floats over: the rows it covers are cleared across all of them. */
	readonly screenColumns: number;
	/** A colour name for the border (already through usePaint, so NO_COLOR gives undefined). */
	readonly borderColor?: string | undefined;
	readonly children: React.ReactNode;
}

/**
 * The frame every box shares: drawn over the panes at its place, with a rounded border. The rows it stands on are
 * blanked from the screen's first column to its last before it is drawn: the pieces of the panes either side of
 * it (`RA│`, `10╭`: a pane's heading cut by the border) read as part of the box or as a broken screen. Above and
 * below it the panes stay in sight. Ink paints only the cells its text fills, so the children's lines must be
 * padded to the inner width (boxLine) or the panes show through inside the box.
 */
export default function FloatingBox({box, screenColumns, borderColor, children}: Props) {
	const blank = ' '.repeat(Math.max(0, screenColumns));
	return (
		<>
			<Box position="absolute" marginTop={box.top} width={screenColumns} height={box.height} flexDirection="column">
				{Array.from({length: box.height}, (_, row) => (
					<Text key={row}>{blank}</Text>
				))}
			</Box>
			<Box
				position="absolute"
				marginLeft={box.left}
				marginTop={box.top}
				width={box.width}
				height={box.height}
				flexDirection="column"
				borderStyle="round"
				borderColor={borderColor}
			>
				{children}
			</Box>
		</>
	);
}
