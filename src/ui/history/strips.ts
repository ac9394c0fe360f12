import {sparkline} from '../widgets/sparkline.js';
import {binColumns} from '../widgets/braille-plot.js';
import type {ChartSpec} from './chart-specs.js';

// The history pane's fallback when it has too few rows for a chart: one line per metric, its window
// as block characters (the highest value per column), then its value now. Pure.

const LABEL = 10;

export function stripLine(spec: ChartSpec, from: number, to: number, width: number): string {
	const value = spec.now === null ? '   n/a' : `${spec.now.toFixed(1)}%`.padStart(6);
	const room = Math.max(0, width - LABEL - value.length - 2);
	const values = binColumns(spec.points, from, to, room).map(v => (v === null ? Number.NaN : v));
	return `${(spec.short ?? spec.label).slice(0, LABEL).padEnd(LABEL)} ${sparkline(values, room, 100)} ${value}`;
}
