import React from 'react';
import {Text} from 'ink';
import {sparkline} from './sparkline.js';
import {usePaint} from '../color.js';

export interface Props {
	/** Samples, oldest first; only the newest `width` are drawn. */
	readonly values: readonly number[];
	/** Columns to fill, exactly. */
	readonly width: number;
	/** Value of a full block; default the largest value shown (100 for percents). */
	readonly max?: number;
	/** Colour of the blocks (dropped under NO_COLOR). */
	readonly color?: string;
}

/** A fixed-width ▁▂▃▄▅▆▇█ line of recent values. */
function Sparkline({values, width, max, color}: Props) {
	const paint = usePaint();
	return <Text color={color === undefined ? undefined : paint(color)}>{sparkline(values, width, max)}</Text>;
}

export default React.memo(Sparkline);
