// A mistyped key's likely meaning ("ramTreshold" → "ramThreshold", "vram" → "vram_mb"), for the messages that
// refuse an unknown key in a config file or a cluster.yaml.

/** Edit distance between two strings. */
function distance(a: string, b: string): number {
	const row = Array.from({length: b.length + 1}, (_, i) => i);
	for (let i = 1; i <= a.length; i++) {
		let previous = row[0]!;
		row[0] = i;
		for (let j = 1; j <= b.length; j++) {
			const current = row[j]!;
			row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
			previous = current;
		}
	}
	return row[b.length]!;
}

/** ` (did you mean "x"?)` for the known key nearest to `key` (case aside, at most 3 edits away), else ''. */
export function didYouMean(key: string, known: readonly string[]): string {
	const nearest = known.map(k => ({k, d: distance(key.toLowerCase(), k.toLowerCase())})).sort((x, y) => x.d - y.d)[0];
	return nearest && nearest.d <= 3 ? ` (did you mean "${nearest.k}"?)` : '';
}
