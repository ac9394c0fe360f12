// The confirm box's body: fitting a list of lines into the rows left.

/**
 * At most `rows` of `lines`; when they do not all fit, the last row says how many were left out,
 * so a long target list is never silently cut (the app shows the rest elsewhere or on scroll).
 */
export function fitLines(lines: readonly string[], rows: number): string[] {
	if (rows <= 0) return [];
	if (lines.length <= rows) return [...lines];
	const kept = lines.slice(0, rows - 1);
	return [...kept, `… +${lines.length - kept.length} more`];
}
