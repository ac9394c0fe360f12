import React from 'react';
import {Box, Text} from 'ink';
import {padEnd} from '../../format/columns.js';
import {fitLines} from './body-lines.js';

export interface KeyHelp {
	/** As the user types it: `q`, `↑↓ j k`, `space`. */
	readonly keys: string;
	readonly description: string;
}

export interface Props {
	/** The keys to list, in order (the app passes its keymap, without the actions --readonly removes). */
	readonly entries: readonly KeyHelp[];
	/** Columns of the box, border included. */
	readonly width: number;
	/** Most lines the box may take, border included. */
	readonly height?: number;
	readonly title?: string;
	/** Lines after the keys (the signal marks' legend). */
	readonly notes?: readonly string[];
}

/** A bordered overlay listing keys; it only renders (Esc and ? are the app's). */
function Help({entries, width, height = Number.POSITIVE_INFINITY, title = 'Keys', notes = []}: Props) {
	const keysWidth = Math.max(0, ...entries.map(e => [...e.keys].length));
	const rows = [...entries.map(e => `${padEnd(e.keys, keysWidth)}  ${e.description}`), ...notes];
	// Border (2) and title.
	const body = fitLines(rows, Math.max(0, height - 3));
	return (
		<Box flexDirection="column" borderStyle="round" paddingX={1} width={width}>
			<Text bold wrap="truncate-end">
				{title}
			</Text>
			{body.map((line, i) => (
				<Text key={i} wrap="truncate-end">
					{line}
				</Text>
			))}
		</Box>
	);
}

export default React.memo(Help);
