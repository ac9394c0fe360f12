import React from 'react';
import {Box, Text} from 'ink';
import {usePaint} from '../color.js';
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
	/** Columns of the box, border included. */
	readonly width: number;
	/** Most lines the box may take, border included; body lines beyond it are summarised. */
	readonly height?: number;
	/** A destructive action (emergency checkpoint, a signal that kills): red border. */
	readonly danger?: boolean;
}

/** Border (2), title and buttons: the rows every confirm box needs. */
const FIXED_ROWS = 4;

function Button({label, selected}: {readonly label: string; readonly selected: boolean}) {
	// The ▸ marks the selection without colour or inverse video (NO_COLOR, a plain log of the screen).
	return (
		<Text inverse={selected} bold={selected}>
			{selected ? `▸ ${label} ` : `  ${label} `}
		</Text>
	);
}

/** A bordered yes/no box. It only renders; the app owns the keys (←/→/Tab, Enter, Esc). */
function Confirm({
	title,
	lines,
	confirmLabel,
	selected = 'cancel',
	width,
	height = Number.POSITIVE_INFINITY,
	danger = false,
}: Props) {
	const paint = usePaint();
	const room = Math.max(0, height - FIXED_ROWS);
	// Blank lines around the body only when every body line already fits.
	const spacing = room >= lines.length + 2 ? 2 : room >= lines.length + 1 ? 1 : 0;
	const body = fitLines(lines, room - spacing);
	return (
		<Box
			flexDirection="column"
			borderStyle="round"
			borderColor={paint(danger ? 'red' : 'yellow')}
			paddingX={1}
			width={width}
		>
			<Text bold wrap="truncate-end">
				{title}
			</Text>
			{spacing === 2 ? <Text> </Text> : null}
			{body.map((line, i) => (
				<Text key={i} wrap="truncate-end">
					{line}
				</Text>
			))}
			{spacing >= 1 ? <Text> </Text> : null}
			<Text wrap="truncate-end">
				<Button label="Cancel" selected={selected === 'cancel'} />
				{'   '}
				<Button label={confirmLabel} selected={selected === 'confirm'} />
			</Text>
		</Box>
	);
}

export default React.memo(Confirm);
