// Text sparklines for the memory gauges: the last minutes of a metric in a few columns.

const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/**
 * The newest `width` values as block characters, newest on the right, always exactly `width`
 * columns (left-padded with spaces while history is short, so gauges do not jump as it fills).
 * Bars are scaled from 0 to `max` (default: the largest value shown), not from the minimum:
 * for memory a flat 80 % must not look like a wild swing between 79 and 81. Values are clamped
 * to [0, max]; a value that is not a finite number is drawn as a space (a gap in the samples).
 * A `max` that is not a positive number is ignored.
 */
export function sparkline(values: readonly number[], width: number, max?: number): string {
	if (width <= 0) return '';
	const shown = values.slice(-width);
	const top =
		max !== undefined && Number.isFinite(max) && max > 0 ? max : Math.max(0, ...shown.filter(v => Number.isFinite(v)));
	const cells = shown.map(value => {
		if (!Number.isFinite(value)) return ' ';
		if (top <= 0) return BLOCKS[0];
		const ratio = Math.min(1, Math.max(0, value / top));
		return BLOCKS[Math.round(ratio * (BLOCKS.length - 1))]!;
	});
	return ' '.repeat(width - cells.length) + cells.join('');
}
