import React from 'react';
import {Box, Text} from 'ink';
import type {Need, PaneDefinition} from './pane.js';
import Line from '../widgets/Line.js';
import type {RankProcess, RankSet} from '../../core/types.js';
import {columns} from '../../format/columns.js';
import {compactCommand} from '../../format/command-line.js';
import {usePaint, type Paint} from '../color.js';
import {scrollWindow} from '../scroll.js';
import {
	DEFAULT_SEARCH_HINT,
	fixedColumns,
	headerText,
	moreText,
	signalCells,
	signalsText,
	titleParts,
	type SignalCell,
} from './rank-rows.js';

export interface Props {
	/** The job's ranks at the last scan; null before the first or without rank sampling. */
	readonly ranks: RankSet | null;
	/** Why the last scan failed (snapshot.ranksError). */
	readonly error: string | null;
	/** Index (into ranks.ranks) of the selected row; kept visible when the list scrolls. */
	readonly cursor: number;
	/** PIDs marked as targets (`●`); none marked means every rank is a target. */
	readonly marked: ReadonlySet<number>;
	readonly width: number;
	/** Lines available; the pane never draws more. */
	readonly height: number;
	/** Narrow form: TERM INT USR1 USR2 only, no command column. */
	readonly compact?: boolean;
	/** Says where ranks are looked for, after "no ranks found". */
	readonly searchHint?: string;
}

function markColor(cell: SignalCell): string | null {
	if (!cell.state) return null;
	if (cell.state.disposition === 'handled') return 'green';
	if (cell.state.disposition === 'ignored') return 'yellow';
	return cell.state.terminatesByDefault ? 'red' : null;
}

/** The marks coloured by what the signal would do; padded to `width` so the commands line up. */
function Signals({
	cells,
	width,
	paint,
}: {
	readonly cells: readonly SignalCell[];
	readonly width: number;
	readonly paint: Paint;
}) {
	const padding = width - columns(signalsText(cells));
	return (
		<>
			{cells.map((cell, i) => {
				const color = markColor(cell);
				return (
					<React.Fragment key={cell.name}>
						{i > 0 ? ' ' : ''}
						{cell.name}
						<Text color={color === null ? undefined : paint(color)} dimColor={color === null}>
							{cell.mark}
						</Text>
					</React.Fragment>
				);
			})}
			{' '.repeat(Math.max(0, padding))}
		</>
	);
}

interface RowProps {
	readonly rank: RankProcess;
	readonly selected: boolean;
	readonly marked: boolean;
	readonly compact: boolean;
	/** Columns of the signals column (the widest visible row's). */
	readonly signalsWidth: number;
	readonly width: number;
}

function Row({rank, selected, marked, compact, signalsWidth, width}: RowProps) {
	const paint = usePaint();
	// › and ● carry selection and marking without colour or inverse video.
	const lead = `${selected ? '›' : ' '}${marked ? '●' : ' '} `;
	return (
		<Box width={width}>
			<Text wrap="truncate-end" inverse={selected}>
				{lead}
				<Text color={rank.stalled ? paint('yellow') : undefined} bold={rank.stalled}>
					{fixedColumns(rank)}
				</Text>{' '}
				<Signals cells={signalCells(rank, compact)} width={compact ? 0 : signalsWidth} paint={paint} />
				{compact ? '' : ` ${compactCommand(rank.cmd)}`}
			</Text>
		</Box>
	);
}

/**
 * One row per rank with its signal dispositions (`TERM✓ INT✓ USR1✓ USR2✗`), under a title with
 * the launcher and SLURM job. With more ranks than rows, a window around the cursor and a
 * "+N more" line; without ranks, the scan's error or where ranks were looked for.
 */
function RanksPane({
	ranks,
	error,
	cursor,
	marked,
	width,
	height,
	compact = false,
	searchHint = DEFAULT_SEARCH_HINT,
}: Props) {
	if (height <= 0) return null;
	const list = ranks?.ranks ?? [];
	if (ranks === null || list.length === 0) {
		const reason = error ? `rank scan failed: ${error}` : `no ranks found (${searchHint})`;
		return (
			<Box flexDirection="column" width={width}>
				<Line width={width}>
					<Text bold>RANKS</Text>
					{height === 1 ? ` ${reason}` : ''}
				</Line>
				{height >= 2 ? <Line width={width}>{reason}</Line> : null}
			</Box>
		);
	}

	let room = height - 1;
	const showHeader = room >= 2;
	if (showHeader) room--;
	// With too many ranks, one row goes to the "+N more" line (unless only one row is left at all).
	const scrolled = list.length > room;
	const visible = scrolled && room >= 2 ? room - 1 : room;
	const {start, end} = scrollWindow(list.length, cursor, visible);
	const at = Math.min(list.length - 1, Math.max(0, cursor));
	const shown = list.slice(start, end);
	const signalsWidth = Math.max(0, ...shown.map(rank => columns(signalsText(signalCells(rank, compact)))));
	return (
		<Box flexDirection="column" width={width}>
			<Line width={width}>
				<Text bold>RANKS</Text> {titleParts(ranks, marked, error).join(' · ')}
			</Line>
			{showHeader ? (
				<Line width={width} dim>
					{headerText(compact, signalsWidth)}
				</Line>
			) : null}
			{shown.map((rank, i) => (
				<Row
					key={rank.pid}
					rank={rank}
					selected={start + i === at}
					marked={marked.has(rank.pid)}
					compact={compact}
					signalsWidth={signalsWidth}
					width={width}
				/>
			))}
			{scrolled && room >= 2 ? <Line width={width}>{moreText(list.length, start, end)}</Line> : null}
		</Box>
	);
}

const Memo = React.memo(RanksPane);
export default Memo;

/** Title (+launcher, SLURM), column header, one row per rank — or the title and why there are none. */
export function ranksNeed(ranks: number): Need {
	return ranks === 0 ? {min: 2, want: 2} : {min: 3, want: 2 + ranks};
}

export const ranksPane: PaneDefinition = {
	id: 'ranks',
	wideFrom: 110,
	firstRows: 8,
	need: data => ranksNeed(data.snapshot.ranks?.ranks.length ?? 0),
	render: ({snapshot, cursor, marked}, box) => (
		<Memo
			ranks={snapshot.ranks}
			error={snapshot.ranksError}
			cursor={cursor}
			marked={marked}
			width={box.width}
			height={box.height}
			compact={box.compact}
		/>
	),
};
