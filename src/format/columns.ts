// Column helpers for one-line rows and plain tables. Widths count code points: every glyph traintop
// draws (✓ ✗ █ ┊ › ●) is one column; Ink's `wrap="truncate"` still has the last word on wide
// characters in user text (a command line with CJK paths).

export function columns(text: string): number {
	return [...text].length;
}

/** Pad on the right to `width` columns (never cuts). */
export function padEnd(text: string, width: number): string {
	return text + ' '.repeat(Math.max(0, width - columns(text)));
}

/** Pad on the left to `width` columns (never cuts): numbers line up on their last digit. */
export function padStart(text: string, width: number): string {
	return ' '.repeat(Math.max(0, width - columns(text))) + text;
}

/** Cut to `width` columns, ending with `…` when something was cut. */
export function truncate(text: string, width: number): string {
	if (width <= 0) return '';
	const chars = [...text];
	if (chars.length <= width) return text;
	return `${chars.slice(0, width - 1).join('')}…`;
}
