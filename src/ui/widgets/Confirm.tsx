import React from 'react';
import {Text} from 'ink';
import FloatingBox from './FloatingBox.js';
import {columns} from '../../format/columns.js';
import {confirmRows} from '../box-text.js';
import {usePaint} from '../color.js';
import {BOX_FRAME_COLUMNS, BOX_FRAME_ROWS, boxLine, boxWidthFor, maxBoxSize, placeBox} from '../overlay-box.js';
import {clampScroll} from '../scroll.js';

export type ConfirmChoice = 'cancel' | 'confirm';

export interface Props {
	/** First line, in bold: what is about to happen and to which job (`Send SIGUSR1 (save) to job torchrun:4242?`). */
	readonly title: string;
	/** The details: the job's targets in a line, then one line per target PID, its rank and what it does with the signal. */
	readonly lines: readonly string[];
	/** The confirm button's label (`Send SIGUSR1`). */
	readonly confirmLabel: string;
	/** The highlighted button. Defaults to Cancel: Enter on an unread box must do nothing. */
	readonly selected?: ConfirmChoice;
	/** Columns of the screen the box floats over, centred; it is as wide as its text needs, at most width − 4. */
	readonly width: number;
	/**
	 * Lines of the screen the box floats over; at most height − 3 of them are the box. Every line is wrapped whole;
	 * a body taller than that scrolls (↑↓), with a row saying which of its rows are in sight.
	 */
	readonly height: number;
	/** The first body row shown when the body scrolls (clamped so the last page stays full). */
	readonly scroll?: number;
	/** A destructive action (emergency checkpoint, a signal that kills): red border. */
	readonly danger?: boolean;
}

/** The title and buttons, besides the border: the rows every confirm box needs (the title may take more). */
const FIXED_ROWS = BOX_FRAME_ROWS + 1;
const BUTTON_GAP = '   ';

/** A button's text: the ▸ marks the selection without colour or inverse video (NO_COLOR, a plain log of the screen). */
const buttonText = (label: string, selected: boolean): string => (selected ? `▸ ${label} ` : `  ${label} `);

function Button({label, selected}: {readonly label: string; readonly selected: boolean}) {
	return (
		<Text inverse={selected} bold={selected}>
			{buttonText(label, selected)}
		</Text>
	);
}

/** A bordered yes/no box floating over the panes. It only renders; the app owns the keys (←/→/Tab, ↑↓, Enter, Esc). */
function Confirm({title, lines, confirmLabel, selected = 'cancel', width, height, scroll = 0, danger = false}: Props) {
	const paint = usePaint();
	const rows = confirmRows(title, lines, width, height);
	const first = clampScroll(scroll, rows.body.length, rows.shown);
	const shown = rows.body.slice(first, first + rows.shown);
	const where =
		rows.shown < rows.body.length ? `↑↓ more · rows ${first + 1}–${first + shown.length} of ${rows.body.length}` : null;
	const room = maxBoxSize(width, height).height - FIXED_ROWS - rows.title.length;
	// Blank lines around the body only when every body row already fits with them.
	const spacing = where !== null ? 0 : room >= shown.length + 2 ? 2 : room >= shown.length + 1 ? 1 : 0;
	const buttons =
		buttonText('Cancel', selected === 'cancel') + BUTTON_GAP + buttonText(confirmLabel, selected === 'confirm');
	const box = placeBox(width, height, {
		// As wide as every body row, not only those in sight: the box keeps its width while it scrolls.
		width: boxWidthFor([...rows.title, ...rows.body, buttons, where ?? '']),
		height: FIXED_ROWS + rows.title.length + spacing + shown.length + (where === null ? 0 : 1),
	});
	// The buttons' line is runs of text: padded after them to the box's inner width, as boxLine pads a line.
	const buttonsPad = ' '.repeat(Math.max(0, box.width - BOX_FRAME_COLUMNS - columns(buttons)));
	const blank = boxLine('', box.width);
	return (
		<FloatingBox box={box} screenColumns={width} borderColor={paint(danger ? 'red' : 'yellow')}>
			{rows.title.map((line, i) => (
				<Text key={`title${i}`} bold wrap="truncate-end">
					{boxLine(line, box.width)}
				</Text>
			))}
			{spacing === 2 ? <Text>{blank}</Text> : null}
			{shown.map((line, i) => (
				<Text key={first + i} wrap="truncate-end">
					{boxLine(line, box.width)}
				</Text>
			))}
			{where !== null ? (
				<Text dimColor wrap="truncate-end">
					{boxLine(where, box.width)}
				</Text>
			) : null}
			{spacing >= 1 ? <Text>{blank}</Text> : null}
			<Text wrap="truncate-end">
				{' '}
				<Button label="Cancel" selected={selected === 'cancel'} />
				{BUTTON_GAP}
				<Button label={confirmLabel} selected={selected === 'confirm'} />
				{`${buttonsPad} `}
			</Text>
		</FloatingBox>
	);
}

export default React.memo(Confirm);
