// Pure geometry of a gauge line: which cells of the bar are filled, where the threshold mark
// sits, and which optional parts fit in the width. Gauge.tsx only paints what this decides.

const FILLED = '█';
const EMPTY = '░';
export const MARK = '┊';

export interface BarSegment {
	readonly text: string;
	/** Part of the filled (used) region: painted in the level's colour. */
	readonly filled: boolean;
}

/** Column (0-based) of the threshold mark in a bar `width` cells wide; null without a threshold. */
export function markColumn(threshold: number | null, width: number): number | null {
	if (threshold === null || !Number.isFinite(threshold) || width <= 0) return null;
	return Math.min(width - 1, Math.max(0, Math.floor((threshold * width) / 100)));
}

/**
 * Filled cells for a percent. Rounded to the nearest cell, then kept on the correct side of the
 * mark: a value at or over the threshold always reaches past the mark and one under it never
 * does, so "past the line" on the bar means exactly "at or over the threshold" in the numbers.
 */
export function filledCells(percent: number | null, threshold: number | null, width: number): number {
	if (percent === null || !Number.isFinite(percent) || width <= 0) return 0;
	let filled = Math.min(width, Math.max(0, Math.round((percent * width) / 100)));
	const mark = markColumn(threshold, width);
	if (mark !== null && threshold !== null) {
		filled = percent >= threshold ? Math.max(filled, mark + 1) : Math.min(filled, mark);
	}
	return filled;
}

/** The bar as runs of equal paint: `███` filled, `░░` empty, with `┊` at the threshold column. */
export function barSegments(percent: number | null, threshold: number | null, width: number): BarSegment[] {
	const filled = filledCells(percent, threshold, width);
	const mark = markColumn(threshold, width);
	const segments: BarSegment[] = [];
	for (let i = 0; i < width; i++) {
		const isFilled = i < filled;
		const char = i === mark ? MARK : isFilled ? FILLED : EMPTY;
		const last = segments.at(-1);
		if (last && last.filled === isFilled) {
			segments[segments.length - 1] = {text: last.text + char, filled: isFilled};
		} else {
			segments.push({text: char, filled: isFilled});
		}
	}
	return segments;
}

export const MIN_BAR = 10;
export const MAX_BAR = 60;
/** `100.0%` */
export const VALUE_WIDTH = 6;
/** `WARN` */
const TAG_WIDTH = 4;
/** Columns before each optional part. */
const GAP = 2;

/**
 * The optional parts of a gauge line, most important first, with the columns each always takes
 * (so that the bars of every gauge in a pane line up, whatever their texts), the blank columns
 * before it, and the bar it must leave: absolute numbers and history only once the bar itself is
 * comfortable to read. A GPU's sensors come after its memory history and before the absolute
 * memory numbers (the percent and the headroom already say how full it is), and go whole, the
 * power first, then the temperature, then the utilisation: never cut mid-word.
 */
export const OPTIONAL_PARTS = {
	/** `9.8 GiB to 85%`, `1.2 GiB over 90%` */
	headroom: {width: 17, minBar: MIN_BAR, gap: GAP},
	/** `peak  80.2%` */
	peak: {width: 11, minBar: MIN_BAR, gap: GAP},
	sparkline: {width: 0, minBar: 20, gap: GAP},
	/** `util 100%`: the GPU's busy share (nvidia-smi `utilization.gpu`). */
	utilization: {width: 9, minBar: 20, gap: GAP},
	/** `64°C`, one space after the utilisation (and only with it, when the gauge has both). */
	temperature: {width: 5, minBar: 20, gap: 1, after: 'utilization'},
	/** `312/700 W`, draw and limit (`1000/1000 W` fits); only with the temperature, when the gauge has both. */
	power: {width: 11, minBar: 20, gap: 1, after: 'temperature'},
	/** `57.7 GiB/80.0 GiB` */
	usage: {width: 17, minBar: 20, gap: GAP},
} as const;

export type OptionalPart = keyof typeof OPTIONAL_PARTS;

/** The parts of a memory gauge (the default): the sensors are a GPU's, asked for by name. */
const MEMORY_PARTS: ReadonlySet<OptionalPart> = new Set<OptionalPart>(['headroom', 'peak', 'sparkline', 'usage']);

export interface GaugePlan {
	readonly barWidth: number;
	/** The optional parts that fit. */
	readonly parts: ReadonlySet<OptionalPart>;
}

/** Columns of label, bar separator, value and level word: everything but the bar and the optional parts. */
export function gaugeBaseWidth(labelWidth: number): number {
	return labelWidth + 1 + 1 + VALUE_WIDTH + 1 + TAG_WIDTH;
}

/**
 * Fits a gauge into `width` columns: label, bar, value and level word always; then each optional
 * part in priority order while the bar keeps the cells that part asks for; the bar takes what is
 * left, up to MAX_BAR (a 150-cell bar is no easier to read than a 60-cell one). It depends on
 * widths and on which parts a gauge has, never on their texts, so gauges of equal width with the
 * same parts get equal bars.
 */
export function planGauge(
	width: number,
	labelWidth: number,
	sparklineWidth: number,
	wanted: ReadonlySet<OptionalPart> = MEMORY_PARTS,
): GaugePlan {
	let used = gaugeBaseWidth(labelWidth);
	const parts = new Set<OptionalPart>();
	for (const name of Object.keys(OPTIONAL_PARTS) as OptionalPart[]) {
		if (!wanted.has(name)) continue;
		const part = OPTIONAL_PARTS[name];
		const partWidth = name === 'sparkline' ? sparklineWidth : part.width;
		if (partWidth <= 0) continue;
		// A narrower part that comes after a wider one it belongs with never shows without it.
		if ('after' in part && wanted.has(part.after) && !parts.has(part.after)) continue;
		if (used + part.gap + partWidth + part.minBar <= width) {
			parts.add(name);
			used += part.gap + partWidth;
		}
	}
	return {barWidth: Math.max(1, Math.min(MAX_BAR, width - used)), parts};
}
