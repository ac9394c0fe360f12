import React from 'react';
import {Box, Text} from 'ink';
import type {RankProcess} from '../../core/types.js';
import type {RankMemory} from '../../core/memory-types.js';
import {columns} from '../../format/columns.js';
import {compactCommand} from '../../format/command-line.js';
import {type SignalHandling, signalHandling} from '../../format/signals.js';
import {type Paint, usePaint} from '../color.js';
import {fixedColumns, type SignalCell, signalCells, signalRoom, signalsText} from './rank-rows.js';

// One rank's row of the ranks pane: the cursor and mark, its fixed columns (coloured when stopped or stalled), its
// signal marks coloured by what each signal would do, its command. The words of the row: rank-rows.ts.

const MARK_COLOR: Readonly<Record<SignalHandling, string | null>> = {
	handled: 'green',
	ignored: 'yellow',
	kills: 'red',
	harmless: null,
};

function markColor(cell: SignalCell): string | null {
	return cell.state ? MARK_COLOR[signalHandling(cell.state)] : null;
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
	/** The signals the keys send (save, emergency): a compact row shows them first and keeps them when narrow. */
	readonly signalsFirst: readonly string[];
	/** Columns of the signals column (the widest visible row's). */
	readonly signalsWidth: number;
	readonly width: number;
	readonly hostWidth: number;
	/** The rank with its workers, by RSS and PSS (snapshot.jobMemory); absent: its own RSS. */
	readonly memory?: RankMemory | null;
	/** Whether the rows have a PSS column (rank-memory.ts pssColumn). */
	readonly pss?: boolean;
}

function RankRow({
	rank,
	selected,
	marked,
	compact,
	signalsFirst,
	signalsWidth,
	width,
	hostWidth,
	memory = null,
	pss = false,
}: RowProps) {
	const paint = usePaint();
	// › and ● carry selection and marking without colour or inverse video.
	const lead = `${selected ? '›' : ' '}${marked ? '●' : ' '} `;
	// A stopped rank (T) makes no progress until SIGCONT; a stalled one may be hung in a collective.
	const color = rank.stopped ? 'red' : rank.stalled ? 'yellow' : null;
	const cells = signalCells(rank, compact, signalsFirst, compact ? signalRoom(width, hostWidth) : undefined);
	const fixed = (
		<Text color={color === null ? undefined : paint(color)} bold={color !== null}>
			{fixedColumns(rank, hostWidth, memory, pss)}
		</Text>
	);
	const signals = <Signals cells={cells} width={compact ? 0 : signalsWidth} paint={paint} />;
	if (compact)
		return (
			<Box width={width}>
				<Text wrap="truncate-end" inverse={selected}>
					{lead}
					{fixed} {signals}
				</Text>
			</Box>
		);
	// The fixed columns, the signal marks and the command are three texts, the command cut at the row's end: Ink
	// measures each text's width on every frame, and a row with one ✓ in it went character by character through
	// Unicode segmentation (string-width's slow path) for all its ~300 columns: the largest garbage of the many-node
	// screen. Apart, only the marks (and the cursor's ›) take that path; the columns and the command (plain ASCII as
	// a rule) take the fast one. The columns and marks never shrink, as they did not in one text.
	return (
		<Box width={width}>
			<Box flexShrink={0}>
				<Text inverse={selected}>
					{lead}
					{fixed}{' '}
				</Text>
				<Text inverse={selected}>{signals}</Text>
			</Box>
			<Text wrap="truncate-end" inverse={selected}>{` ${compactCommand(rank.cmd)}`}</Text>
		</Box>
	);
}

/**
 * Memoised: a node's ranks keep their objects between its scans (the fleet's relabelled ranks too), and a frame
 * redraws only the rows whose rank, cursor or widths changed.
 */
export default React.memo(RankRow);
