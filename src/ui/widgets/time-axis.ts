import type {Marker} from '../../core/markers.js';
import type {Level} from '../../core/types.js';
import {localTime} from '../../format/time.js';

// The history charts' time axis: a rule with the saves, alerts and exits marked where they happened,
// and under it clock-time labels at round steps. Clock time rather than "−5m": after a crash people
// hold the chart against the job's own log. Pure.

export interface Tick {
	/** Cell column of the label's first character. */
	readonly x: number;
	readonly label: string;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Round steps between labels, shortest first. */
const STEPS = [
	10 * SECOND,
	15 * SECOND,
	30 * SECOND,
	MINUTE,
	2 * MINUTE,
	5 * MINUTE,
	10 * MINUTE,
	15 * MINUTE,
	30 * MINUTE,
	HOUR,
	2 * HOUR,
	3 * HOUR,
	6 * HOUR,
	12 * HOUR,
	24 * HOUR,
];

/** `14:05`, with seconds when the step is under a minute, the month and day when it is a day or more (local time). */
function clockLabel(time: number, step: number): string {
	const local = localTime(time); // 2026-11-24 14:05:30
	if (step < MINUTE) return local.slice(11, 19);
	if (step >= 24 * HOUR) return local.slice(5, 10);
	return local.slice(11, 16);
}

/**
 * Labels at the first round step that leaves `gap` columns from one label to the next, aligned to
 * the local clock (minutes on the minute), none cut at the right edge.
 */
export function timeTicks(from: number, to: number, width: number, gap = 12): Tick[] {
	if (width <= 0 || to <= from) return [];
	const msPerColumn = (to - from) / width;
	const step = STEPS.find(s => s / msPerColumn >= gap) ?? STEPS.at(-1)!;
	// Local midnight-aligned steps: the time zone offset moves the grid, not the labels' text.
	const offset = new Date(from).getTimezoneOffset() * MINUTE;
	const first = Math.ceil((from - offset) / step) * step + offset;
	const ticks: Tick[] = [];
	for (let t = first; t <= to; t += step) {
		const x = Math.round((t - from) / msPerColumn);
		const label = clockLabel(t, step);
		const previous = ticks.at(-1);
		if (x + label.length > width) break;
		if (previous && x <= previous.x + previous.label.length) continue;
		ticks.push({x, label});
	}
	return ticks;
}

/** The label row: `width` columns with each tick's label at its column. */
export function tickRow(ticks: readonly Tick[], width: number): string {
	const cells = new Array<string>(Math.max(0, width)).fill(' ');
	for (const {x, label} of ticks) for (let i = 0; i < label.length && x + i < width; i++) cells[x + i] = label[i]!;
	return cells.join('');
}

export type AxisStyle = 'rule' | 'save' | Level | 'exit';

export interface AxisCell {
	readonly char: string;
	readonly style: AxisStyle;
}

const MARK: Readonly<Record<Marker['kind'], string>> = {save: '▲', alert: '!', exit: '✕'};

/** Which mark wins a shared column: an exit, then the worse alert, then a save. */
function weight(marker: Marker): number {
	if (marker.kind === 'exit') return 4;
	if (marker.kind === 'alert') return marker.level === 'critical' ? 3 : 2;
	return 1;
}

function styleOf(marker: Marker): AxisStyle {
	if (marker.kind === 'save') return 'save';
	if (marker.kind === 'exit') return marker.level === 'ok' ? 'exit' : marker.level;
	return marker.level;
}

/** The rule under the plot with a mark at each marker's column (`▲` save, `!` alert, `✕` exit). */
export function markerRule(markers: readonly Marker[], from: number, to: number, width: number): AxisCell[] {
	const cells: AxisCell[] = Array.from({length: Math.max(0, width)}, () => ({char: '─', style: 'rule' as const}));
	if (width <= 0 || to <= from) return cells;
	const winners = new Map<number, Marker>();
	for (const marker of markers) {
		if (marker.time < from || marker.time > to) continue;
		const x = Math.min(width - 1, Math.floor(((marker.time - from) / (to - from)) * width));
		const held = winners.get(x);
		if (!held || weight(marker) >= weight(held)) winners.set(x, marker);
	}
	for (const [x, marker] of winners) cells[x] = {char: MARK[marker.kind], style: styleOf(marker)};
	return cells;
}
