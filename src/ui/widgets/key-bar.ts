export interface KeyHint {
	/** `q`, `space`, `?` */
	readonly key: string;
	/** `quit`, `mark`, `help` */
	readonly label: string;
}

/** Columns between two hints. */
export const HINT_GAP = 2;

function hintWidth(hint: KeyHint): number {
	return [...hint.key].length + 1 + [...hint.label].length;
}

/**
 * The hints that fit in `width` columns, in order; a hint is left out whole rather than cut in
 * half (a bar ending in `e emerg` misleads). The app orders hints by importance.
 */
export function fitKeyBar(hints: readonly KeyHint[], width: number): KeyHint[] {
	const kept: KeyHint[] = [];
	let used = 0;
	for (const hint of hints) {
		const cost = (kept.length === 0 ? 0 : HINT_GAP) + hintWidth(hint);
		if (used + cost > width) break;
		kept.push(hint);
		used += cost;
	}
	return kept;
}
