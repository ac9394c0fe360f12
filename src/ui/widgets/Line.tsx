import type React from 'react';
import {Box, Text} from 'ink';

export interface Props {
	/** Columns of the line; longer content is cut with `…`, never wrapped onto a second line. */
	readonly width: number;
	/** Text and nested <Text> runs. */
	readonly children: React.ReactNode;
	readonly dim?: boolean;
}

/** Exactly one terminal line: what lets every pane promise "at most `height` lines". */
function Line({width, children, dim = false}: Props) {
	return (
		<Box width={width}>
			<Text wrap="truncate-end" dimColor={dim}>
				{children}
			</Text>
		</Box>
	);
}

export default Line;
