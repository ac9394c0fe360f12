/** Left-aligned columns two spaces apart; the last column is not padded (it may be long). */
export function table(rows: readonly (readonly string[])[]): string[] {
	const widths = rows[0]!.map((_, i) => Math.max(...rows.map(row => (row[i] ?? '').length)));
	return rows.map(row =>
		row
			.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]! + 2)))
			.join('')
			.trimEnd(),
	);
}
