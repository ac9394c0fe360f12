import type {Analysis, AnalysisThresholds, MetricAnalysis, Restart} from './analyze.js';
import type {Episode} from './episodes.js';
import type {RamBasis} from './ram-basis.js';
import type {Trend} from './trend.js';
import {truncate} from '../format/columns.js';
import {formatDuration} from '../format/duration.js';
import {isoTimeText} from '../format/time.js';

// The report of `traintop --analyze`: plain text for the terminal (fits 80 columns), Markdown
// tables for an incident note, and the stable JSON shape.

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

// ——— formatting helpers ———

const fixed = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '–');

const signed = (x: number, digits = 1) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(digits)}`;

/** "+1.2 GiB/h (+0.9 %/h); crosses 85 % at 2026-11-22 14:30", or "flat" / "falling (−0.4 %/h)". */
function describeTrend(trend: Trend, threshold: number): string {
	const parts: string[] = [];
	if (trend.slope_gib_per_hour !== undefined) parts.push(`${signed(trend.slope_gib_per_hour)} GiB/h`);
	parts.push(`${signed(trend.slope_per_hour)} %/h`);
	const rate = parts.length === 2 ? `${parts[0]} (${parts[1]})` : parts[0]!;
	if (trend.points < 2) return 'flat (too few points)';
	if (!trend.enough_data) {
		const minutes = Math.round(trend.span_hours * 60);
		return `too little data to tell (${minutes < 1 ? 'under a minute' : `${minutes} min`}, ${trend.points} points)`;
	}
	if (trend.direction === 'flat') return `flat (${rate})`;
	if (trend.direction === 'falling') return `falling (${rate})`;
	const cross = trend.projected_breach_at
		? `; crosses ${fixed(threshold, 0)} % at ${isoTimeText(trend.projected_breach_at)}`
		: '';
	return `${rate}${cross}`;
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

function skippedCount(skipped: ReportOptions['skipped']): number {
	if (skipped === undefined) return 0;
	return typeof skipped === 'number' ? skipped : skipped.length;
}

function spanText(analysis: Analysis): string {
	if (!analysis.first || !analysis.last) return 'no records';
	const seconds = (Date.parse(analysis.last) - Date.parse(analysis.first)) / 1000;
	return `${isoTimeText(analysis.first, true)} → ${isoTimeText(analysis.last, true)} UTC (${formatDuration(seconds)})`;
}

function episodeLine(e: Episode): string {
	const sameDay = e.start.slice(0, 10) === e.end.slice(0, 10);
	const end = sameDay ? e.end.slice(11, 19) : isoTimeText(e.end, true);
	return `${isoTimeText(e.start, true)} → ${end}  ${formatDuration(e.duration_s)}  peak ${fixed(e.peak)} %`;
}

function restartText(r: Restart): string {
	if (r.reason === 'host') return `host ${r.previous_host ?? '?'} → ${r.host ?? '?'}`;
	const {job_id: job, previous_restart_count: from, restart_count: to} = r;
	if (r.reason === 'requeue') return `requeued: SLURM job ${job ?? '?'} restart ${from ?? '?'} → ${to ?? '?'}`;
	return `time went back from ${r.previous_time ? isoTimeText(r.previous_time, true) : '?'}`;
}

// ——— text ———

function metricText(m: MetricAnalysis, width: number): string[] {
	const lines = [`${m.label}  (threshold ${fixed(m.threshold, 0)} %, ${m.samples} samples)`];
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
	return lines.map(l => truncate(l, width));
}

function text(analysis: Analysis, options: ReportOptions): string {
	const width = Math.max(40, options.width ?? 80);
	const lines: string[] = ['traintop memory report'];
	const files = options.files?.length;
	const skipped = skippedCount(options.skipped);
	let records = `Records  ${analysis.records}`;
	if (files !== undefined) records += ` from ${files} file${files === 1 ? '' : 's'}`;
	if (options.skipped !== undefined) records += `, ${skipped} line${skipped === 1 ? '' : 's'} skipped`;
	lines.push(records);
	lines.push(`Span     ${spanText(analysis)}`);
	if (analysis.hosts.length > 0) lines.push(`Hosts    ${analysis.hosts.join(', ')}`);
	lines.push(`Verdict  ${analysis.breached ? 'BREACHED: a metric reached its threshold' : 'no threshold reached'}`);
	for (const m of analysis.metrics) {
		lines.push('');
		lines.push(...metricText(m, width));
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
	return lines.map(l => truncate(l, width)).join('\n');
}

// ——— markdown ———

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
	return [
		`| ${header.map(cell).join(' | ')} |`,
		`|${header.map(() => ' --- ').join('|')}|`,
		...rows.map(r => `| ${r.map(cell).join(' | ')} |`),
	];
}

function markdown(analysis: Analysis, options: ReportOptions): string {
	const out: string[] = ['## traintop memory report', ''];
	const summary: string[][] = [
		['Records', String(analysis.records)],
		['First', analysis.first ?? '–'],
		['Last', analysis.last ?? '–'],
		['Span', spanText(analysis)],
	];
	if (options.files) summary.push(['Files', String(options.files.length)]);
	if (options.skipped !== undefined) summary.push(['Skipped lines', String(skippedCount(options.skipped))]);
	if (analysis.hosts.length > 0) summary.push(['Hosts', analysis.hosts.join(', ')]);
	summary.push(['Breached', analysis.breached ? 'yes' : 'no']);
	out.push(...table(['Item', 'Value'], summary), '');

	out.push('### Metrics', '');
	out.push(
		...table(
			['Metric', 'Threshold %', 'Min', 'Mean', 'p50', 'p95', 'Max', 'Above threshold', 'Episodes', 'Trend'],
			analysis.metrics.map(m => [
				m.label,
				fixed(m.threshold, 0),
				fixed(m.min),
				fixed(m.mean),
				fixed(m.p50),
				fixed(m.p95),
				fixed(m.max),
				formatDuration(m.time_above_threshold_s),
				String(m.episodes.length),
				describeTrend(m.trend, m.threshold),
			]),
		),
		'',
	);
	const episodes = analysis.metrics.flatMap(m =>
		m.episodes.map(e => [m.label, e.start, e.end, formatDuration(e.duration_s), fixed(e.peak)]),
	);
	out.push('### Episodes above threshold', '');
	if (episodes.length === 0) out.push('None.', '');
	else out.push(...table(['Metric', 'Start', 'End', 'Duration', 'Peak %'], episodes), '');
	out.push('### Gaps', '');
	if (analysis.gaps.length === 0) out.push('None.', '');
	else
		out.push(
			...table(
				['Start', 'End', 'Duration'],
				analysis.gaps.map(g => [g.start, g.end, formatDuration(g.duration_s)]),
			),
			'',
		);
	out.push('### Restarts', '');
	if (analysis.restarts.length === 0) out.push('None.');
	else
		out.push(
			...table(
				['Time', 'Reason', 'Detail'],
				analysis.restarts.map(r => [r.time, r.reason, restartText(r)]),
			),
		);
	return out.join('\n');
}

/** The report as text (≤ width columns) or Markdown. */
export function formatReport(analysis: Analysis, options: ReportOptions): string {
	return options.format === 'markdown' ? markdown(analysis, options) : text(analysis, options);
}

// ——— JSON ———

export interface MetricJson {
	readonly min: number;
	readonly mean: number;
	readonly p50: number;
	readonly p95: number;
	readonly max: number;
	readonly time_above_threshold_s: number;
	readonly episodes: {start: string; end: string; duration_s: number; peak: number}[];
	readonly trend: {slope_per_hour: number; slope_gib_per_hour?: number; projected_breach_at: string | null};
	/** `ram` in a log with a cgroup limit: what its percent is against, per record (host RAM where none). */
	readonly against?: RamBasis;
}

export interface AnalysisJson {
	readonly records: number;
	readonly first: string | null;
	readonly last: string | null;
	readonly breached: boolean;
	readonly thresholds: AnalysisThresholds;
	readonly metrics: Record<string, MetricJson>;
	readonly skipped: SkippedItem[];
	readonly gaps: {start: string; end: string}[];
	/** A requeue's with its SLURM job and its restart count before and after. */
	readonly restarts: Pick<
		Restart,
		'time' | 'reason' | 'host' | 'job_id' | 'restart_count' | 'previous_restart_count'
	>[];
}

/** Rounded for a stable, readable JSON (4 decimals is far below the logs' precision). */
const r4 = (x: number) => (Number.isFinite(x) ? Math.round(x * 1e4) / 1e4 : null);

/** The stable JSON shape of an analysis. */
export function analysisJson(analysis: Analysis, extra: {skipped: readonly SkippedItem[]}): AnalysisJson {
	const metrics: Record<string, MetricJson> = {};
	for (const m of analysis.metrics) {
		metrics[m.id] = {
			min: r4(m.min) as number,
			mean: r4(m.mean) as number,
			p50: r4(m.p50) as number,
			p95: r4(m.p95) as number,
			max: r4(m.max) as number,
			time_above_threshold_s: r4(m.time_above_threshold_s) as number,
			episodes: m.episodes.map(e => ({
				start: e.start,
				end: e.end,
				duration_s: r4(e.duration_s) as number,
				peak: e.peak,
			})),
			trend: {
				slope_per_hour: r4(m.trend.slope_per_hour) as number,
				...(m.trend.slope_gib_per_hour === undefined
					? {}
					: {slope_gib_per_hour: r4(m.trend.slope_gib_per_hour) as number}),
				projected_breach_at: m.trend.projected_breach_at,
			},
			// Only where a record had a cgroup limit: a log without one keeps the JSON it always had.
			...(m.ram_basis && m.ram_basis.cgroup_samples > 0 ? {against: m.ram_basis} : {}),
		};
	}
	return {
		records: analysis.records,
		first: analysis.first,
		last: analysis.last,
		breached: analysis.breached,
		thresholds: analysis.thresholds,
		metrics,
		skipped: extra.skipped.map(s => ({file: s.file, line: s.line, reason: s.reason})),
		gaps: analysis.gaps.map(g => ({start: g.start, end: g.end})),
		restarts: analysis.restarts.map(({time, reason, host, job_id, restart_count, previous_restart_count}) =>
			reason === 'requeue' ? {time, reason, host, job_id, restart_count, previous_restart_count} : {time, reason, host},
		),
	};
}
