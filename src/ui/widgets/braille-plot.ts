import type {HistoryPoint} from '../../core/metric-history.js';

// A metric's history as a filled area of braille dots: each cell is 2 dots wide and 4 tall, so a
// 60 × 5 plot shows 120 time steps at 20 heights. Pure: points in, styled cells out; the chart widget
// only paints them. Each dot column takes the HIGHEST value that fell in its time span (a memory chart
// must not smooth a peak away), and a gap in the samples stays a gap rather than a made-up line.

/** How a cell is painted: the area under the threshold, over it, the threshold line, or nothing. */
export type CellStyle = 'data' | 'over' | 'threshold' | 'empty';

export interface PlotCell {
	readonly char: string;
	readonly style: CellStyle;
}

export interface PlotInput {
	/** Values in percent (any order is fine; they are binned by time). */
	readonly points: readonly HistoryPoint[];
	/** Epoch ms at the left edge and at the right edge. */
	readonly from: number;
	readonly to: number;
	/** Cells across and down. */
	readonly width: number;
	readonly height: number;
	/** The value at the top edge (default 100). */
	readonly max?: number;
	/** Drawn as a dashed line where the area does not cover it; the area above it is `over`. */
	readonly threshold?: number | null;
}

const BRAILLE = 0x2800;
/** Dot bits of a cell, left column then right, from the bottom dot up. */
const DOT_BITS = [
	[0x40, 0x04, 0x02, 0x01],
	[0x80, 0x20, 0x10, 0x08],
] as const;
const THRESHOLD_CHAR = '┄';

/** The typical spacing of the samples: a longer silence is a gap, not a flat line. */
function typicalGap(points: readonly HistoryPoint[]): number {
	const gaps: number[] = [];
	for (let i = 1; i < points.length; i++) gaps.push(points[i]!.time - points[i - 1]!.time);
	if (gaps.length === 0) return 0;
	gaps.sort((a, b) => a - b);
	return gaps[Math.floor(gaps.length / 2)]!;
}

/**
 * One value per dot column: the highest sample in its span; where none fell in it, the last sample
 * before it as long as that is within three typical sample spacings (a slow sampler must not draw
 * dotted lines); null before the first sample and in real gaps.
 */
export function binColumns(
	points: readonly HistoryPoint[],
	from: number,
	to: number,
	columns: number,
): (number | null)[] {
	const out: (number | null)[] = new Array(columns).fill(null);
	if (columns <= 0 || to <= from) return out;
	// The Monitor's series come in time order (a merged GPU chart's do not): sort only when needed, as
	// this runs for every chart on every frame.
	const finite = points.filter(p => Number.isFinite(p.value));
	const inOrder = finite.every((p, i) => i === 0 || finite[i - 1]!.time <= p.time);
	const sorted = inOrder ? finite : finite.sort((a, b) => a.time - b.time);
	const span = (to - from) / columns;
	const hold = Math.max(span, 3 * typicalGap(sorted));
	let i = 0;
	let last: HistoryPoint | null = null;
	for (let c = 0; c < columns; c++) {
		const end = from + (c + 1) * span;
		let best: number | null = null;
		while (i < sorted.length && sorted[i]!.time < end) {
			const p = sorted[i]!;
			if (p.time >= from + c * span) best = best === null ? p.value : Math.max(best, p.value);
			last = p;
			i++;
		}
		if (best === null && last && from + c * span - last.time <= hold && last.time <= to) best = last.value;
		out[c] = best;
	}
	return out;
}

/** Dots lit from the bottom for a value: at least one for anything above 0, so a low line still shows. */
function dotsFor(value: number, max: number, rows: number): number {
	const dots = Math.round((Math.min(max, Math.max(0, value)) / max) * rows * 4);
	return value > 0 ? Math.max(1, dots) : 0;
}

/** The plot's rows, top first, each `width` cells. */
export function plotArea(input: PlotInput): PlotCell[][] {
	const width = Math.max(0, Math.floor(input.width));
	const height = Math.max(0, Math.floor(input.height));
	const max = input.max && input.max > 0 ? input.max : 100;
	const values = binColumns(input.points, input.from, input.to, width * 2);
	const heights = values.map(v => (v === null ? 0 : dotsFor(v, max, height)));
	const threshold = input.threshold ?? null;
	const lineRow = thresholdRowFromTop(threshold, height, max);
	const rows: PlotCell[][] = [];
	for (let r = height - 1; r >= 0; r--) {
		const row: PlotCell[] = [];
		for (let x = 0; x < width; x++) {
			let bits = 0;
			let over = false;
			for (const side of [0, 1] as const) {
				const lit = heights[x * 2 + side]!;
				for (let d = 0; d < 4; d++) if (lit > r * 4 + d) bits |= DOT_BITS[side][d]!;
				const value = values[x * 2 + side];
				if (threshold !== null && value !== null && value !== undefined && value >= threshold && lit > r * 4)
					over = true;
			}
			if (bits !== 0) row.push({char: String.fromCodePoint(BRAILLE + bits), style: over ? 'over' : 'data'});
			else if (height - 1 - r === lineRow) row.push({char: THRESHOLD_CHAR, style: 'threshold'});
			else row.push({char: ' ', style: 'empty'});
		}
		rows.push(row);
	}
	return rows;
}

/** The cell row (from the top) the threshold falls in, where its line is drawn and the y scale labels it. */
export function thresholdRowFromTop(threshold: number | null | undefined, height: number, max = 100): number | null {
	if (threshold === null || threshold === undefined || height <= 0) return null;
	const dots = dotsFor(threshold, max, height);
	return height - 1 - Math.min(height - 1, Math.max(0, Math.ceil(dots / 4) - 1));
}

/** Neighbouring cells of one style joined: what the widget paints as one Text each. */
export function runsOf<S extends string>(
	row: readonly {readonly char: string; readonly style: S}[],
): {text: string; style: S}[] {
	const runs: {text: string; style: S}[] = [];
	for (const cell of row) {
		const last = runs.at(-1);
		if (last && last.style === cell.style) last.text += cell.char;
		else runs.push({text: cell.char, style: cell.style});
	}
	return runs;
}
