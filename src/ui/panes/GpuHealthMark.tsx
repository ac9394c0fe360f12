import React from 'react';
import {Box, Text} from 'ink';
import {LEVEL_COLOR} from '../../format/levels.js';
import {usePaint} from '../color.js';
import type {GpuHealthMark as Mark} from './memory-rows.js';

export interface Props {
	/** The GPU's health words; null for a GPU with nothing to say (the column stays blank, so bars line up). */
	readonly mark: Mark | null;
	/** Columns, the two blank ones before the words included. */
	readonly width: number;
}

/**
 * The health words at the end of a GPU's gauge line: `  thermal slowdown` in its level's colour (a power cap or MIG,
 * which are not problems, dimmed), cut at the right edge rather than wrapped.
 */
function GpuHealthMark({mark, width}: Props) {
	const paint = usePaint();
	return (
		<Box width={width}>
			<Text
				wrap="truncate-end"
				color={mark === null || mark.level === 'ok' ? undefined : paint(LEVEL_COLOR[mark.level])}
				dimColor={mark?.level === 'ok'}
			>
				{mark === null ? '' : `  ${mark.text}`}
			</Text>
		</Box>
	);
}

export default React.memo(GpuHealthMark);
