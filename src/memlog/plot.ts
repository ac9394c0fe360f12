import type {Analysis, AnalysisThresholds} from './analyze.js';
import {type MetricSeries, recordOf, type Series} from './series.js';

// A hand-written SVG chart of a memory log: one panel per metric over time, with the value line,
// the peak line (lighter), the dashed critical threshold, shaded episodes and time labels.

const WIDTH = 900;
const LEFT = 48;
const RIGHT = 16;
const TOP = 36;
const PANEL = 140;
const PANEL_GAP = 44;
const PLOT_W = WIDTH - LEFT - RIGHT;
/** Time labels per panel. */
const TICKS = 5;

/** Escape text and attribute values for XML. */
export function escapeXml(s: string): string {
	return s
		.replaceAll('&', '&amp;')
		.replaceAll('<', '&lt;')
		.replaceAll('>', '&gt;')
		.replaceAll('"', '&quot;')
		.replaceAll("'", '&apos;');
}

const n1 = (x: number) => (Math.round(x * 10) / 10).toString();

function timeLabel(ms: number, span: number): string {
	const iso = new Date(ms).toISOString();
	return span > 2 * 86_400_000 ? iso.slice(5, 16).replace('T', ' ') : iso.slice(11, 16);
}

/**
 * A path of per-column maxima: at most one point per horizontal pixel, so a million-point series
 * stays a small path; a column without data (a gap in the log) breaks the line.
 */
function columnPath(
	metric: MetricSeries,
	series: Series,
	values: Float32Array,
	x: (t: number) => number,
	y: (v: number) => number,
): string {
	const columns = new Float64Array(PLOT_W + 1).fill(Number.NaN);
	for (let i = 0; i < metric.count; i++) {
		const c = Math.round(x(series.time[recordOf(metric, i)]!) - LEFT);
		const v = values[i]!;
		if (c >= 0 && c <= PLOT_W && !(columns[c]! >= v)) columns[c] = v;
	}
	// Columns narrower than the typical spacing are not gaps: bridge up to 3 × the median step.
	let step = 1;
	let last = -1;
	const steps: number[] = [];
	for (let c = 0; c <= PLOT_W; c++) {
		if (Number.isNaN(columns[c]!)) continue;
		if (last >= 0) steps.push(c - last);
		last = c;
	}
	if (steps.length > 0) step = steps.sort((a, b) => a - b)[Math.floor(steps.length / 2)]!;
	const parts: string[] = [];
	last = -1;
	for (let c = 0; c <= PLOT_W; c++) {
		const v = columns[c]!;
		if (Number.isNaN(v)) continue;
		const command = last >= 0 && c - last <= Math.max(3 * step, 2) ? 'L' : 'M';
		parts.push(`${command}${n1(LEFT + c)} ${n1(y(v))}`);
		last = c;
	}
	return parts.join(' ');
}

/** The chart as a standalone SVG document. */
export function plotSvg(series: Series, analysis: Analysis, thresholds: AnalysisThresholds): string {
	const metrics = series.metrics;
	const height = TOP + Math.max(1, metrics.length) * (PANEL + PANEL_GAP);
	const t0 = series.time[0] ?? 0;
	const t1 = series.time[series.records - 1] ?? t0;
	const span = t1 - t0;
	const x = (t: number) => LEFT + (span > 0 ? ((t - t0) / span) * PLOT_W : PLOT_W / 2);
	const out: string[] = [
		'<?xml version="1.0" encoding="UTF-8"?>',
		`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
		`<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
	];
	const title =
		analysis.first && analysis.last
			? `traintop memory log ${analysis.first} – ${analysis.last} (${analysis.records} records)`
			: 'traintop memory log (no records)';
	out.push(`<text x="${LEFT}" y="20" font-size="13" font-weight="bold">${escapeXml(title)}</text>`);
	if (metrics.length === 0) {
		out.push(`<text x="${LEFT}" y="${TOP + 20}">No metrics in the log.</text>`);
	}
	metrics.forEach((metric, index) => {
		const info = analysis.metrics.find(m => m.id === metric.id);
		const critical = info?.threshold ?? thresholds[metric.kind].critical;
		const top = TOP + index * (PANEL + PANEL_GAP) + 16;
		const bottom = top + PANEL;
		let maxV = 100;
		for (let i = 0; i < metric.count; i++) maxV = Math.max(maxV, metric.peak[i]!);
		const y = (v: number) => bottom - (Math.max(0, Math.min(maxV, v)) / maxV) * PANEL;
		const label = info?.label ?? metric.id;
		out.push(`<g class="panel" data-metric="${escapeXml(metric.id)}">`);
		out.push(
			`<text x="${LEFT}" y="${top - 6}" font-weight="bold">${escapeXml(`${label}: memory % (threshold ${n1(critical)} %)`)}</text>`,
		);
		out.push(
			`<rect class="frame" x="${LEFT}" y="${top}" width="${PLOT_W}" height="${PANEL}" fill="none" stroke="#999999"/>`,
		);
		for (const v of [0, 50, 100]) {
			out.push(`<text x="${LEFT - 6}" y="${n1(y(v) + 4)}" text-anchor="end" fill="#555555">${v}</text>`);
		}
		for (const e of info?.episodes ?? []) {
			const ex = x(Math.max(t0, e.start_ms));
			const w = Math.max(1, x(e.end_ms) - ex);
			out.push(
				`<rect class="episode" x="${n1(ex)}" y="${top}" width="${n1(w)}" height="${PANEL}" fill="#d62728" fill-opacity="0.15"><title>${escapeXml(`${e.start} – ${e.end}, peak ${n1(e.peak)} %`)}</title></rect>`,
			);
		}
		out.push(
			`<line class="threshold" x1="${LEFT}" x2="${LEFT + PLOT_W}" y1="${n1(y(critical))}" y2="${n1(y(critical))}" stroke="#d62728" stroke-dasharray="6 4"/>`,
		);
		out.push(
			`<path class="peak" d="${columnPath(metric, series, metric.peak, x, y)}" fill="none" stroke="#1f77b4" stroke-opacity="0.35" stroke-width="1"/>`,
		);
		out.push(
			`<path class="value" d="${columnPath(metric, series, metric.value, x, y)}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>`,
		);
		for (let k = 0; k < TICKS; k++) {
			const t = span > 0 ? t0 + (span * k) / (TICKS - 1) : t0;
			const tx = x(t);
			const anchor = k === 0 ? 'start' : k === TICKS - 1 ? 'end' : 'middle';
			out.push(`<line x1="${n1(tx)}" x2="${n1(tx)}" y1="${bottom}" y2="${bottom + 4}" stroke="#999999"/>`);
			out.push(
				`<text class="time" x="${n1(tx)}" y="${bottom + 16}" text-anchor="${anchor}" fill="#555555">${escapeXml(timeLabel(t, span))}</text>`,
			);
			if (span <= 0) break;
		}
		out.push('</g>');
	});
	out.push('</svg>');
	return `${out.join('\n')}\n`;
}
