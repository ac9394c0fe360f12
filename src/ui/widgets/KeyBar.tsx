import React from 'react';
import {Box, Text} from 'ink';
import {fitKeyBar, HINT_GAP, type KeyHint} from './key-bar.js';

export interface Props {
	/** Key hints, most important first: those that do not fit are dropped from the end. */
	readonly hints: readonly KeyHint[];
	/** Columns of the bar. */
	readonly width: number;
}

/** The bottom line: `q quit  ↑↓ move  space mark  s save  e emergency  ? help`. */
function KeyBar({hints, width}: Props) {
	const shown = fitKeyBar(hints, width);
	return (
		<Box width={width}>
			<Text wrap="truncate-end">
				{shown.map((hint, i) => (
					<React.Fragment key={hint.key}>
						{i > 0 ? ' '.repeat(HINT_GAP) : ''}
						{/* Inverse, not colour: the key stands out under NO_COLOR too. */}
						<Text inverse bold>
							{hint.key}
						</Text>
						{` ${hint.label}`}
					</React.Fragment>
				))}
			</Text>
		</Box>
	);
}

export default React.memo(KeyBar);
