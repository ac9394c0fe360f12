// The top of a history chart's y scale: 100 % with the default thresholds (85 % RAM, 90 % GPU), but a
// threshold set low (`--ram-threshold 8` on a big node) gets a scale that shows the climb to it rather
// than a flat line along the bottom. Always a round number above both the threshold and the window's
// highest value, so that the threshold line and every peak are on the chart. Pure.

const STEPS = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10] as const;

/** The smallest round number (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10ⁿ) at or above `value`, within 1 … 100. */
function roundUp(value: number): number {
	if (!(value > 1)) return 1;
	const magnitude = 10 ** Math.floor(Math.log10(value));
	const step = STEPS.find(s => s * magnitude >= value - 1e-9) ?? 10;
	return Math.min(100, step * magnitude);
}

/** The scale's top in percent for a threshold (null: none) and the highest value in the window (-1: none). */
export function chartTop(threshold: number | null, windowMax: number): number {
	const highest = Math.max(threshold ?? 100, windowMax);
	return roundUp(highest * 1.1);
}
