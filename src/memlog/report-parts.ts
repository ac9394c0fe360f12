import type {Analysis, MetricAnalysis, Restart} from './analyze.js';
import type {Episode} from './episodes.js';
import type {Trend} from './trend.js';
import {truncate} from '../format/columns.js';
import {formatDuration} from '../format/duration.js';
import {isoTimeText} from '../format/time.js';
import {foldedText} from './fold.js';

// The words and pieces the `--analyze` reports share: one host's (report.ts) and several hosts' (report-hosts.ts)
// say a metric, an episode, a trend or a restart the same way.

export interface SkippedItem {
	readonly file: string;
	readonly line: number;
	readonly reason: string;
}

export interface ReportOptions {
	readonly format: 'text' | 'markdown';
	/** Columns of the text report (default 80). */
	readonly width?: number;
	/** The files read, for the header. */
	readonly files?: readonly string[];
	/** Lines skipped by the reader: a count, or the lines themselves. */
	readonly skipped?: number | readonly SkippedItem[];
}

/** Episodes listed per metric before "+N more". */
const EPISODES_SHOWN = 5;
const SPARK = '▁▂▃▄▅▆▇█';

export const fixed = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

const signed = (x: number, digits = 1) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`;

/** "+1.2 GiB/h (+0.9 %/h); crosses 85 % at 2026-11-22 14:30", or "flat" / "falling (−0.4 %/h)". */
function describeTrend(trend: Trend, threshold: number): string {
	const parts: string[] = [];
	if (trend.slope_gib_per_hour !== undefined) parts.push(`${signed(trend.slope_gib_per_hour)} GiB/h`);
	parts.push(`${signed(trend.slope_per_hour)} %/h`);
	const rate = parts.length === 2 ? `${parts[0]} (${parts[1]})` : parts[0]!;
	if (trend.points < 2) return 'flat (too few points)';
	// The span as the Span line says the log's (formatDuration both), so 30 s of data never reads as "1 min".
	if (!trend.enough_data) return `too little data to tell (${formatDuration(trend.span_s)}, ${trend.points} points)`;
	if (trend.direction === 'flat') return `flat (${rate})`;
	if (trend.direction === 'falling') return `falling (${rate})`;
	const cross = trend.projected_breach_at
		? `; crosses ${fixed(threshold, 0)} % at ${isoTimeText(trend.projected_breach_at)}`
		: '';
	return `${rate}${cross}`;
}

/**
 * Which part of the log the trend is over: "over the last 26 m 00 s, since 2026-11-22 13:10:00, after a change
 * there", "over the last 6 h 00 m (the trend window), since …", or "over the whole log"; '' without two points.
 */
function trendPartText(trend: Trend): string {
	if (trend.points < 2 || trend.since === null) return '';
	const since = `since ${isoTimeText(trend.since, true)}`;
	const last = `over the last ${formatDuration(trend.span_s)}`;
	if (trend.after_change) return `${last}, ${since}, after a change there`;
	if (trend.windowed) return `${last} (the trend window), ${since}`;
	return 'over the whole log';
}

/** Unicode blocks for per-bucket maxima (0–100 %); null (no data) is a space. */
function sparkline(buckets: readonly (number | null)[]): string {
	let out = '';
	for (const v of buckets) {
		if (v === null || !Number.isFinite(v)) out += ' ';
		else out += SPARK[Math.max(0, Math.min(7, Math.floor((v / 100) * 8)))];
	}
	return out;
}

export function skippedCount(skipped: ReportOptions['skipped']): number {
	if (skipped === undefined) return 0;
	return typeof skipped === 'number' ? skipped : skipped.length;
}

/** "Records  10 from 2 files, 3 lines skipped". */
export function recordsLine(records: number, options: ReportOptions): string {
	const files = options.files?.length;
	const skipped = skippedCount(options.skipped);
	let line = `Records  ${records}`;
	if (files !== undefined) line += ` from ${files} file${files === 1 ? '' : 's'}`;
	if (options.skipped !== undefined) line += `, ${skipped} line${skipped === 1 ? '' : 's'} skipped`;
	return line;
}

/** "Folded   19,744 more hosts (…) folded into '(other hosts)': …", a line per fold; none when nothing was. */
export function foldedLines(analysis: Pick<Analysis, 'folded'>): string[] {
	return foldedText(analysis.folded).map(line => `Folded   ${line}`);
}

export function spanText(first: string | null, last: string | null): string {
	if (!first || !last) return 'no records';
	const seconds = (Date.parse(last) - Date.parse(first)) / 1000;
	return `${isoTimeText(first, true)} → ${isoTimeText(last, true)} UTC (${formatDuration(seconds)})`;
}

function episodeLine(e: Episode): string {
	const sameDay = e.start.slice(0, 10) === e.end.slice(0, 10);
	const end = sameDay ? e.end.slice(11, 19) : isoTimeText(e.end, true);
	return `${isoTimeText(e.start, true)} → ${end}  ${formatDuration(e.duration_s)}  peak ${fixed(e.peak)} %`;
}

export function restartText(r: Restart): string {
	const {scheduler, job_id: job, previous_restart_count: from, restart_count: to} = r;
	if (r.reason === 'requeue')
		return `requeued: ${scheduler ?? '?'} job ${job ?? '?'} restart ${from ?? '?'} → ${to ?? '?'}`;
	return `time went back from ${r.previous_time ? isoTimeText(r.previous_time, true) : '?'}`;
}

/** A threshold as set: 60, 87.5. */
const percentText = (x: number) => `${Number(x.toFixed(1))} %`;

const SOURCE_WORDS = {
	log: "this GPU's own line in the log",
	flag: '--gpu-thresholds',
	global: 'the global GPU threshold',
};

/** The lowest to the highest line, where a GPU's line in the log changed along it; '' where one line judged all. */
const rangeText = (m: MetricAnalysis) =>
	m.threshold_min === m.threshold_max
		? ''
		: `${Number(m.threshold_min.toFixed(1))}–${percentText(m.threshold_max)} along the log`;

/**
 * Where a single GPU's threshold came from, when it is not simply the global one: "threshold 60 % from this GPU's
 * own line in the log, not the global 90 %", and "its line changed: 60–90 % along the log" where it did (a line
 * each, so an 80-column report keeps both). None for a metric judged by the global rule throughout.
 */
function thresholdSourceLines(m: MetricAnalysis, global: number): string[] {
	const range = rangeText(m);
	if (m.threshold_source === 'global' && range === '') return [];
	const from = `threshold ${percentText(m.threshold)} from ${SOURCE_WORDS[m.threshold_source]}`;
	const versus = m.threshold_source === 'global' ? '' : `, not the global ${percentText(global)}`;
	return [`${from}${versus}`, ...(range === '' ? [] : [`its line changed: ${range}`])];
}

// ——— text ———

function metricText(m: MetricAnalysis, width: number, globalGpu: number): string[] {
	const lines = [`${m.label}  (threshold ${fixed(m.threshold, 0)} %, ${m.samples} samples)`];
	for (const line of thresholdSourceLines(m, globalGpu)) lines.push(`  ${line}`);
	lines.push(
		`  min ${fixed(m.min)}  mean ${fixed(m.mean)}  p50 ${fixed(m.p50)}  p95 ${fixed(m.p95)}  max ${fixed(m.max)} %`,
	);
	const spark = sparkline(m.sparkline.slice(0, Math.max(0, width - 4)));
	if (spark.trim() !== '') lines.push(`  ${spark}`);
	if (m.episodes.length === 0) {
		lines.push('  above threshold: never');
	} else {
		const count = m.episodes.length;
		lines.push(
			`  above threshold: ${formatDuration(m.time_above_threshold_s)} in ${count} episode${count === 1 ? '' : 's'}`,
		);
		for (const e of m.episodes.slice(0, EPISODES_SHOWN)) lines.push(`    ${episodeLine(e)}`);
		if (count > EPISODES_SHOWN) lines.push(`    +${count - EPISODES_SHOWN} more`);
	}
	lines.push(`  trend: ${describeTrend(m.trend, m.threshold)}`);
	const part = trendPartText(m.trend);
	if (part !== '') lines.push(`    ${part}`);
	return lines.map(l => truncate(l, width));
}

/** One analysis below its header lines: each metric, then the gaps and the restarts. */
export function analysisBodyText(analysis: Analysis, width: number): string[] {
	const lines: string[] = [];
	for (const m of analysis.metrics) {
		lines.push('');
		lines.push(...metricText(m, width, analysis.thresholds.gpu.critical));
	}
	lines.push('');
	if (analysis.gaps.length === 0) lines.push('Gaps: none');
	else {
		lines.push(`Gaps: ${analysis.gaps.length}`);
		for (const g of analysis.gaps) {
			lines.push(`  ${isoTimeText(g.start, true)} → ${isoTimeText(g.end, true)}  ${formatDuration(g.duration_s)}`);
		}
	}
	if (analysis.restarts.length === 0) lines.push('Restarts: none');
	else {
		lines.push(`Restarts: ${analysis.restarts.length}`);
		for (const r of analysis.restarts) lines.push(`  ${isoTimeText(r.time, true)}  ${restartText(r)}`);
	}
	return lines;
}

// ——— markdown ———

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
	return [
		`| ${header.map(cell).join(' | ')} |`,
		`|${header.map(() => ' --- ').join('|')}|`,
		...rows.map(r => `| ${r.map(cell).join(' | ')} |`),
	];
}

export const METRIC_HEADER = [
	'Metric',
	'Threshold %',
	'Min',
	'Mean',
	'p50',
	'p95',
	'Max',
	'Above threshold',
	'Episodes',
	'Trend',
] as const;

/** "60 (log's per-GPU line)", "70 (--gpu-thresholds)", "85, 60–85 along the log", or the plain "90". */
function thresholdCell(m: MetricAnalysis): string {
	const words =
		m.threshold_source === 'log' ? "log's per-GPU line" : m.threshold_source === 'flag' ? '--gpu-thresholds' : '';
	const notes = [words, rangeText(m)].filter(Boolean).join(', ');
	return `${fixed(m.threshold, 0)}${notes === '' ? '' : ` (${notes})`}`;
}

/** A metric's cells under METRIC_HEADER. */
export function metricRow(m: MetricAnalysis): string[] {
	return [
		m.label,
		thresholdCell(m),
		fixed(m.min),
		fixed(m.mean),
		fixed(m.p50),
		fixed(m.p95),
		fixed(m.max),
		formatDuration(m.time_above_threshold_s),
		String(m.episodes.length),
		[describeTrend(m.trend, m.threshold), trendPartText(m.trend)].filter(Boolean).join(', '),
	];
}
