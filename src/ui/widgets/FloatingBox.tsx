import type React from 'react';
import {Box} from 'ink';
import type {BoxRect} from '../overlay-box.js';

export interface Props {
	/** Where it floats and how big it is (overlay-box.ts placeBox). */
	readonly box: BoxRect;
	/** A colour name for the border (already through usePaint, so NO_COLOR gives undefined). */
	readonly borderColor?: string | undefined;
	readonly children: React.ReactNode;
}

/**
 * The frame every box shares: drawn over the panes at its place, with a rounded border. Ink paints only the cells
 * its text fills, so the children's lines must be padded to the inner width (boxLine) or the panes show through.
 */
export default function FloatingBox({box, borderColor, children}: Props) {
	return (
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
	);
}
