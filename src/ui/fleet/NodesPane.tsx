import React from 'react';
import {Box, Text} from 'ink';
import {LEVEL_COLOR} from '../../format/levels.js';
import {usePaint} from '../color.js';
import type {Need, PaneDefinition} from '../panes/pane.js';
import Line from '../widgets/Line.js';
import type {FleetScreenData} from './fleet-screen-data.js';
import type {NodeOrder, NodeRow} from './node-rows.js';
import {type NodeColumns, nodeColumns, nodeHeaderText, nodesTitle, nodesWindow, rowSegments} from './node-table.js';

export interface Props {
	/** A row per node, in the order drawn. */
	readonly rows: readonly NodeRow[];
	/** Index of the selected row; kept in sight when the list scrolls. */
	readonly cursor: number;
	readonly order: NodeOrder;
	readonly width: number;
	/** Lines available; the pane never draws more. */
	readonly height: number;
}

function Row({row, cols, selected, width}: {row: NodeRow; cols: NodeColumns; selected: boolean; width: number}) {
	const paint = usePaint();
	// A stale or lost node's numbers are its last snapshot's: dimmed, while its state says why in colour.
	const old = row.state === 'stale' || row.state === 'lost';
	return (
		<Box width={width}>
			<Text wrap="truncate-end" inverse={selected}>
				{selected ? '› ' : '  '}
				{rowSegments(row, cols).map((segment, i) => (
					<React.Fragment key={i}>
						{i > 0 ? ' ' : ''}
						<Text
							color={segment.level === null ? undefined : paint(LEVEL_COLOR[segment.level])}
							bold={segment.level !== null && segment.level !== 'ok'}
							dimColor={old && segment.level === null && i > 0}
						>
							{segment.text}
						</Text>
					</React.Fragment>
				))}
			</Text>
		</Box>
	);
}

/**
 * NODES: a title with the count by link state, the column header, then a row per node (level, agent state with
 * its age, RAM, swap, GPU memory max and mean, ranks up/expected, a note); with more nodes than rows, a window
 * around the cursor and a "+N more" line that counts the lost and critical nodes it hides.
 */
function NodesPane({rows, cursor, order, width, height}: Props) {
	if (height <= 0) return null;
	const cols = nodeColumns(rows, width);
	const showHeader = height >= 3;
	const window = nodesWindow(rows, cursor, height - 1 - (showHeader ? 1 : 0));
	return (
		<Box flexDirection="column" width={width}>
			<Line width={width}>
				<Text bold>NODES</Text> {nodesTitle(rows, order)}
			</Line>
			{showHeader ? (
				<Line width={width} dim>
					{nodeHeaderText(cols)}
				</Line>
			) : null}
			{rows.slice(window.start, window.end).map((row, i) => (
				<Row key={row.name} row={row} cols={cols} selected={window.start + i === cursor} width={width} />
			))}
			{window.more ? <Line width={width}>{window.more}</Line> : null}
		</Box>
	);
}

const Memo = React.memo(NodesPane);
export default Memo;

/** The title, the header and a row per node; at the least one row under them. */
function nodesNeed(count: number): Need {
	return {min: 3, want: 2 + Math.max(1, count)};
}

export const nodesPane: PaneDefinition<FleetScreenData> = {
	id: 'nodes',
	wideFrom: 100,
	// The point of the screen: up to a dozen nodes before the ranks get theirs; more share the rest in turn.
	firstRows: 12,
	need: data => nodesNeed(data.rows.length),
	render: (data, box) => (
		<Memo rows={data.rows} cursor={data.cursor} order={data.order} width={box.width} height={box.height} />
	),
};
