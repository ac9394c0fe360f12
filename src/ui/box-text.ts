import {columns, padEnd} from '../format/columns.js';
import {BOX_FRAME_COLUMNS, BOX_FRAME_ROWS, maxBoxSize} from './overlay-box.js';

// A box's text as the rows it is drawn on: every line wrapped to the box's text width, never cut (a confirm box's
// refusal line is read to its end or not at all), and how many of those rows the box can show. Pure: the boxes draw
// from it, and the reducers scroll by the same counts.

/** The leading blanks of a line and two more: where its continuation rows start, under its text. */
function hangingIndent(line: string): string {
	return ' '.repeat(line.length - line.trimStart().length + 2);
}

/**
 * One line as rows at most `width` columns wide: broken at blanks (the blanks at a break dropped), a word longer
 * than a row broken across rows. Rows after the first start with `indent`, unless it would take half the row.
 */
export function wrapLine(text: string, width: number, indent = ''): string[] {
	const room = Math.max(1, width);
	if (columns(text) <= room) return [text];
	const pad = columns(indent) * 2 <= room ? indent : '';
	const rows: string[] = [];
	let row = '';
	let holdsWord = false;
	const nextRow = (): void => {
		rows.push(row.trimEnd());
		row = pad;
		holdsWord = false;
	};
	for (const [, gap = '', word = ''] of text.matchAll(/( *)([^ ]+)/g)) {
		// The first row keeps the line's own leading blanks; a continuation row starts at its indent.
		const joined = row + (holdsWord || rows.length === 0 ? gap : '') + word;
		if (columns(joined) <= room) {
			row = joined;
			holdsWord = true;
			continue;
		}
		if (holdsWord) nextRow();
		let rest = [...word];
		while (columns(row) + rest.length > room) {
			const fit = room - columns(row);
			row += rest.slice(0, fit).join('');
			rest = rest.slice(fit);
			nextRow();
		}
		row += rest.join('');
		holdsWord = rest.length > 0 || holdsWord;
	}
	if (holdsWord || rows.length === 0) rows.push(row.trimEnd());
	return rows;
}

/** Every line wrapped to `width`, each continuation row indented under its line's text. */
export function wrapLines(lines: readonly string[], width: number): string[] {
	return lines.flatMap(line => wrapLine(line, width, hangingIndent(line)));
}

/** The text width of the widest box on a columns × rows screen: what its lines are wrapped to. */
export function boxTextWidth(screenColumns: number, screenRows: number): number {
	return maxBoxSize(screenColumns, screenRows).width - BOX_FRAME_COLUMNS;
}

/** The help's rows: each key, then its description wrapped in a column of its own; the notes under them. */
export function helpRows(
	entries: readonly {readonly keys: string; readonly description: string}[],
	notes: readonly string[],
	width: number,
): string[] {
	const keysWidth = Math.max(0, ...entries.map(entry => columns(entry.keys)));
	const under = ' '.repeat(keysWidth + 2);
	return [
		...entries.flatMap(entry => wrapLine(`${padEnd(entry.keys, keysWidth)}  ${entry.description}`, width, under)),
		...wrapLines(notes, width),
	];
}

/** A confirm box's text as rows: the title's, the body's, and how many body rows it shows at once. */
export interface ConfirmRows {
	readonly title: readonly string[];
	readonly body: readonly string[];
	/** Body rows in sight; when fewer than the body's, a row under them says which and that ↑↓ scrolls. */
	readonly shown: number;
}

/** The buttons' row, besides the border: what every confirm box has under its title. */
const CONFIRM_BUTTON_ROWS = 1;

/** The confirm box's rows on a columns × rows screen: every line whole, the body scrolling when it is too tall. */
export function confirmRows(
	title: string,
	lines: readonly string[],
	screenColumns: number,
	screenRows: number,
): ConfirmRows {
	const width = boxTextWidth(screenColumns, screenRows);
	const titleRows = wrapLine(title, width, '  ');
	const body = wrapLines(lines, width);
	const room = maxBoxSize(screenColumns, screenRows).height - BOX_FRAME_ROWS - CONFIRM_BUTTON_ROWS - titleRows.length;
	// Too tall: one row of the room says which rows are in sight.
	const shown = body.length <= room ? body.length : Math.max(1, room - 1);
	return {title: titleRows, body, shown};
}
