// Column helpers for the panes' one-line rows. Widths count code points: every glyph traintop
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

/** `12.5` → `12.5%`, null → `n/a`; one decimal, as the headless lines. */
export function percentText(value: number | null): string {
	return value === null || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(1)}%`;
}

/** `90` → `90%`, `87.5` → `87.5%`: thresholds are usually whole numbers. */
export function thresholdText(threshold: number): string {
	return `${Number(threshold.toFixed(1))}%`;
}
