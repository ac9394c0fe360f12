import type {Analysis, AnalysisThresholds} from './analyze.js';
import type {LogAnalysis} from './analyze-log.js';
import {type MetricSeries, recordOf} from './metric-series.js';
import {metricRank} from './series.js';
import type {Series} from './series-types.js';
import {timeLabels} from './time-labels.js';
import {OTHER_GPUS_ID} from './fold.js';
import {printable} from '../format/printable.js';

// A hand-written SVG chart of a memory log: one panel per metric over time, with the value line,
// the peak line (lighter), the dashed critical threshold, shaded episodes and time labels; for a log of several
// hosts, one line per host in each panel.

const WIDTH = 900;
const LEFT = 48;
const RIGHT = 16;
const TOP = 36;
const PANEL = 140;
const PANEL_GAP = 44;
const PLOT_W = WIDTH - LEFT - RIGHT;
/** Time labels per panel. */
const TICKS = 5;

/**
 * What XML 1.0 allows nowhere in a document (its Char production: C0 controls other than tab, LF and CR; U+FFFE,
 * U+FFFF; a surrogate without its pair). A parser stops at the first, so a chart holding one does not open at all.
 */
const NOT_XML =
	// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it finds
	/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Escape text and attribute values for XML; a character XML cannot hold at all becomes U+FFFD. */
export function escapeXml(s: string): string {
	return s
		.replace(NOT_XML, '\ufffd')
		.replaceAll('&', '&amp;')
		.replaceAll('<', '&lt;')
		.replaceAll('>', '&gt;')
		.replaceAll('"', '&quot;')
		.replaceAll("'", '&apos;');
}

/** A string from the log (a host's name): shown as the terminal shows it, escapes visible, then made XML. */
const fromLog = (s: string | null) => escapeXml(printable(s ?? ''));

const n1 = (x: number) => (Math.round(x * 10) / 10).toString();

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

interface Frame {
	readonly x: (t: number) => number;
	readonly t0: number;
	readonly span: number;
}

function frameOf(t0: number, t1: number): Frame {
	const span = t1 - t0;
	return {t0, span, x: (t: number) => LEFT + (span > 0 ? ((t - t0) / span) * PLOT_W : PLOT_W / 2)};
}

function documentStart(height: number, title: string): string[] {
	return [
		'<?xml version="1.0" encoding="UTF-8"?>',
		`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
		`<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
		`<text x="${LEFT}" y="20" font-size="13" font-weight="bold">${escapeXml(title)}</text>`,
	];
}

function titleOf(first: string | null, last: string | null, records: number): string {
	return first && last
		? `traintop memory log ${first} – ${last} (${records} records)`
		: 'traintop memory log (no records)';
}

/** One metric's panel: its frame, axis labels, episodes, the threshold line, what `draw` adds, and the time ticks. */
function panel(
	out: string[],
	p: {id: string; label: string; critical: number; top: number; maxV: number; frame: Frame},
	episodes: readonly {start_ms: number; end_ms: number; start: string; end: string; peak: number; fill: string}[],
	draw: (y: (v: number) => number) => string[],
): void {
	const {top, maxV, critical} = p;
	const {x, t0, span} = p.frame;
	const bottom = top + PANEL;
	const y = (v: number) => bottom - (Math.max(0, Math.min(maxV, v)) / maxV) * PANEL;
	out.push(`<g class="panel" data-metric="${escapeXml(p.id)}">`);
	out.push(
		`<text x="${LEFT}" y="${top - 6}" font-weight="bold">${escapeXml(`${p.label}: memory % (threshold ${n1(critical)} %)`)}</text>`,
	);
	out.push(
		`<rect class="frame" x="${LEFT}" y="${top}" width="${PLOT_W}" height="${PANEL}" fill="none" stroke="#999999"/>`,
	);
	for (const v of [0, 50, 100]) {
		out.push(`<text x="${LEFT - 6}" y="${n1(y(v) + 4)}" text-anchor="end" fill="#555555">${v}</text>`);
	}
	for (const e of episodes) {
		// Episodes lie within their host's data (episodes.ts); a 1-px one at the last sample stays inside the frame.
		const start = x(Math.max(t0, e.start_ms));
		const w = Math.max(1, x(e.end_ms) - start);
		const ex = Math.min(start, LEFT + PLOT_W - w);
		out.push(
			`<rect class="episode" x="${n1(ex)}" y="${top}" width="${n1(w)}" height="${PANEL}" fill="${e.fill}" fill-opacity="0.15"><title>${escapeXml(`${e.start} – ${e.end}, peak ${n1(e.peak)} %`)}</title></rect>`,
		);
	}
	out.push(
		`<line class="threshold" x1="${LEFT}" x2="${LEFT + PLOT_W}" y1="${n1(y(critical))}" y2="${n1(y(critical))}" stroke="#d62728" stroke-dasharray="6 4"/>`,
	);
	out.push(...draw(y));
	const ticks = span > 0 ? Array.from({length: TICKS}, (_, k) => t0 + (span * k) / (TICKS - 1)) : [t0];
	for (const {time, label} of timeLabels(ticks)) {
		const tx = x(time);
		const anchor = span > 0 && time === t0 ? 'start' : span > 0 && time === ticks[TICKS - 1] ? 'end' : 'middle';
		out.push(`<line x1="${n1(tx)}" x2="${n1(tx)}" y1="${bottom}" y2="${bottom + 4}" stroke="#999999"/>`);
		out.push(
			`<text class="time" x="${n1(tx)}" y="${bottom + 16}" text-anchor="${anchor}" fill="#555555">${escapeXml(label)}</text>`,
		);
	}
	out.push('</g>');
}

const maxPeak = (metric: MetricSeries, from: number) => {
	let maxV = from;
	for (let i = 0; i < metric.count; i++) maxV = Math.max(maxV, metric.peak[i]!);
	return maxV;
};

/** The chart of one host's log as a standalone SVG document: each metric's value and (lighter) peak line. */
export function plotSvg(series: Series, analysis: Analysis, thresholds: AnalysisThresholds): string {
	const metrics = series.metrics;
	const height = TOP + Math.max(1, metrics.length) * (PANEL + PANEL_GAP);
	const t0 = series.time[0] ?? 0;
	const frame = frameOf(t0, series.time[series.records - 1] ?? t0);
	const out = documentStart(height, titleOf(analysis.first, analysis.last, analysis.records));
	if (metrics.length === 0) {
		out.push(`<text x="${LEFT}" y="${TOP + 20}">No metrics in the log.</text>`);
	}
	metrics.forEach((metric, index) => {
		const info = analysis.metrics.find(m => m.id === metric.id);
		const critical = info?.threshold ?? thresholds[metric.kind].critical;
		const top = TOP + index * (PANEL + PANEL_GAP) + 16;
		const episodes = (info?.episodes ?? []).map(e => ({...e, fill: '#d62728'}));
		const p = {id: metric.id, label: info?.label ?? metric.id, critical, top, maxV: maxPeak(metric, 100), frame};
		panel(out, p, episodes, y => [
			`<path class="peak" d="${columnPath(metric, series, metric.peak, frame.x, y)}" fill="none" stroke="#1f77b4" stroke-opacity="0.35" stroke-width="1"/>`,
			`<path class="value" d="${columnPath(metric, series, metric.value, frame.x, y)}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>`,
		]);
	});
	out.push('</svg>');
	return `${out.join('\n')}\n`;
}

/** Hosts' colours, in the report's order (worst first); they repeat past ten hosts (--host draws one alone). */
const HOST_COLORS = [
	'#1f77b4',
	'#ff7f0e',
	'#2ca02c',
	'#d62728',
	'#9467bd',
	'#8c564b',
	'#e377c2',
	'#7f7f7f',
	'#bcbd22',
	'#17becf',
];
/** Legend entries per row. */
const LEGEND_PER_ROW = 6;

const plainLabel = (id: string) =>
	id === 'ram'
		? 'RAM'
		: id === 'swap'
			? 'Swap'
			: id === 'gpu'
				? 'GPU (all)'
				: id === OTHER_GPUS_ID
					? 'GPU (other)'
					: `GPU ${id.slice(3)}`;

/**
 * The chart of a log of several hosts: a panel per metric with one line per host (its records' window peaks, what
 * the thresholds judge), its episodes shaded in its colour, and a legend of the hosts, worst first.
 */
export function plotLogSvg(log: LogAnalysis): string {
	const [only] = log.hosts;
	if (log.hosts.length === 1 && only) return plotSvg(only.series, only.analysis, log.thresholds);
	const ids = [...new Set(log.hosts.flatMap(h => h.series.metrics.map(m => m.id)))].sort(
		(a, b) => metricRank(a) - metricRank(b),
	);
	const legendRows = Math.ceil(log.hosts.length / LEGEND_PER_ROW);
	const legendTop = TOP + 2;
	const top0 = legendTop + legendRows * 16;
	const height = top0 + Math.max(1, ids.length) * (PANEL + PANEL_GAP);
	const first = log.first ? Date.parse(log.first) : 0;
	const frame = frameOf(first, log.last ? Date.parse(log.last) : first);
	const out = documentStart(height, `${titleOf(log.first, log.last, log.records)}, ${log.hosts.length} hosts`);
	const colorOf = (i: number) => HOST_COLORS[i % HOST_COLORS.length]!;
	log.hosts.forEach((h, i) => {
		const lx = LEFT + (i % LEGEND_PER_ROW) * (PLOT_W / LEGEND_PER_ROW);
		const ly = legendTop + Math.floor(i / LEGEND_PER_ROW) * 16;
		out.push(
			`<g class="legend" data-host="${fromLog(h.host)}"><rect x="${n1(lx)}" y="${ly - 8}" width="12" height="8" fill="${colorOf(i)}"/><text x="${n1(lx + 16)}" y="${ly}">${fromLog(h.host)}</text></g>`,
		);
	});
	if (ids.length === 0) out.push(`<text x="${LEFT}" y="${top0 + 20}">No metrics in the log.</text>`);
	ids.forEach((id, index) => {
		const lines = log.hosts.flatMap((h, i) => {
			const metric = h.series.metrics.find(m => m.id === id);
			const info = h.analysis.metrics.find(m => m.id === id);
			return metric && info ? [{h, metric, info, color: colorOf(i)}] : [];
		});
		const critical = lines[0]!.info.threshold;
		const top = top0 + index * (PANEL + PANEL_GAP) + 16;
		const maxV = lines.reduce((v, l) => maxPeak(l.metric, v), 100);
		const episodes = lines.flatMap(l =>
			l.info.episodes.map(e => ({...e, start: `${printable(l.h.host ?? '')}: ${e.start}`, fill: l.color})),
		);
		panel(out, {id, label: plainLabel(id), critical, top, maxV, frame}, episodes, y =>
			lines.map(
				l =>
					`<path class="peak" data-host="${fromLog(l.h.host)}" d="${columnPath(l.metric, l.h.series, l.metric.peak, frame.x, y)}" fill="none" stroke="${l.color}" stroke-width="1.5"/>`,
			),
		);
	});
	out.push('</svg>');
	return `${out.join('\n')}\n`;
}
