import React from 'react';
import {Text} from 'ink';
import FloatingBox from './FloatingBox.js';
import {columns} from '../../format/columns.js';
import {usePaint} from '../color.js';
import {BOX_FRAME_COLUMNS, BOX_FRAME_ROWS, boxLine, boxWidthFor, maxBoxSize, placeBox} from '../overlay-box.js';
import {fitLines} from './body-lines.js';

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
	/** Lines of the screen the box floats over; at most height − 3 of them are the box, body lines beyond it summarised. */
	readonly height: number;
	/** A destructive action (emergency checkpoint, a signal that kills): red border. */
	readonly danger?: boolean;
}

/** Title and buttons, besides the border: the rows every confirm box needs. */
const FIXED_ROWS = BOX_FRAME_ROWS + 2;
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

/** A bordered yes/no box floating over the panes. It only renders; the app owns the keys (←/→/Tab, Enter, Esc). */
function Confirm({title, lines, confirmLabel, selected = 'cancel', width, height, danger = false}: Props) {
	const paint = usePaint();
	const room = Math.max(0, maxBoxSize(width, height).height - FIXED_ROWS);
	// Blank lines around the body only when every body line already fits.
	const spacing = room >= lines.length + 2 ? 2 : room >= lines.length + 1 ? 1 : 0;
	const body = fitLines(lines, room - spacing);
	const buttons =
		buttonText('Cancel', selected === 'cancel') + BUTTON_GAP + buttonText(confirmLabel, selected === 'confirm');
	const box = placeBox(width, height, {
		width: boxWidthFor([title, ...body, buttons]),
		height: FIXED_ROWS + spacing + body.length,
	});
	// The buttons' line is runs of text: padded after them to the box's inner width, as boxLine pads a line.
	const buttonsPad = ' '.repeat(Math.max(0, box.width - BOX_FRAME_COLUMNS - columns(buttons)));
	const blank = boxLine('', box.width);
	return (
		<FloatingBox box={box} borderColor={paint(danger ? 'red' : 'yellow')}>
			<Text bold wrap="truncate-end">
				{boxLine(title, box.width)}
			</Text>
			{spacing === 2 ? <Text>{blank}</Text> : null}
			{body.map((line, i) => (
				<Text key={i} wrap="truncate-end">
					{boxLine(line, box.width)}
				</Text>
			))}
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
