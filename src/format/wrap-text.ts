import {columns} from './columns.js';

// Text broken into lines of a width, for every box and page that wraps instead of cutting: the rank detail,
// preflight's report, --help.

/**
 * `text` in lines of at most `width` columns, broken at blanks; a word longer than a line (a path, a
 * quoted argument) is broken where the line ends. Lines after the first start with `indent`.
 */
export function wrapText(text: string, width: number, indent = ''): string[] {
	return wrapWords(text.split(' '), width, indent);
}

/** wrapText over words given: a word holding blanks (a quoted argument) is broken only when longer than a line. */
export function wrapWords(words: readonly string[], width: number, indent = ''): string[] {
	const lines: string[] = [];
	const rest = Math.max(1, width - columns(indent));
	const room = (): number => (lines.length === 0 ? Math.max(1, width) : rest);
	// The line being filled, without its indent; `fresh` until a word is on it (blanks at its start are kept).
	let line = '';
	let fresh = true;
	const push = (): void => {
		lines.push(`${lines.length === 0 ? '' : indent}${line}`.trimEnd());
		line = '';
	};
	for (const word of words) {
		let chars = [...word];
		if (line === '' && lines.length > 0) {
			// A continuation line starts with a word: the blanks the break fell on are dropped.
			if (word === '') continue;
		} else if (!fresh) {
			if (columns(line) + 1 + chars.length <= room()) {
				line += ` ${word}`;
				continue;
			}
			// On the next line; a word too long for any line (a path) is broken, from the start of one.
			push();
			if (word === '') continue;
		}
		fresh = false;
		while (columns(line) + chars.length > room()) {
			const left = Math.max(0, room() - columns(line));
			line += chars.slice(0, left).join('');
			chars = chars.slice(left);
			push();
		}
		line += chars.join('');
	}
	push();
	return lines;
}
