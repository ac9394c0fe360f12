import type {Analysis} from './analyze.js';
import type {HostAnalysis, LogAnalysis} from './analyze-log.js';
import {formatReport} from './report.js';
import {
	analysisBodyText,
	fixed,
	foldedLines,
	METRIC_HEADER,
	metricRow,
	type ReportOptions,
	recordsLine,
	restartText,
	skippedCount,
	spanText,
	table,
} from './report-parts.js';
import {truncate} from '../format/columns.js';
import {formatDuration} from '../format/duration.js';
import {printable} from '../format/printable.js';
import {foldedText} from './fold.js';

// The `--analyze` report of a log of several hosts (a multi-node job): a table of the hosts, worst first, so the
// node that ran out of memory is the first line; then each host's own report, as a log of one host reads.

/** The highest max of a host's metrics of one kind; NaN when it has none. */
function peakOf(analysis: Analysis, kind: 'ram' | 'swap' | 'gpu'): number {
	let peak = Number.NaN;
	for (const m of analysis.metrics) if (m.kind === kind && !(m.max <= peak)) peak = m.max;
	return peak;
}

const breaches = (analysis: Analysis) => analysis.metrics.reduce((sum, m) => sum + m.episodes.length, 0);

/** The log's word for the host: shown, never obeyed (a log's `host` may hold escapes). */
const hostName = (h: HostAnalysis) => printable(h.host ?? '');

function durationOf(analysis: Analysis): string {
	if (!analysis.first || !analysis.last) return '–';
	return formatDuration((Date.parse(analysis.last) - Date.parse(analysis.first)) / 1000);
}

/** "2 of 3 hosts: node2, node5", or null when no host breached. */
function breachedHosts(log: LogAnalysis): string | null {
	const names = log.hosts.filter(h => h.analysis.breached).map(hostName);
	return names.length === 0 ? null : `${names.length} of ${log.hosts.length} hosts: ${names.join(', ')}`;
}

// ——— text ———

const SUMMARY = ['Records', 'Span', 'RAM %', 'Swap %', 'GPU %', 'Breaches', 'Restarts'] as const;
/** Each summary column's width after the host's, its header's or more ("47 h 59 m"): the rest is the host's. */
const SUMMARY_WIDTHS = [7, 9, 5, 6, 5, 8, 8] as const;

function summaryText(log: LogAnalysis, width: number): string[] {
	const rest = SUMMARY_WIDTHS.reduce((sum, w) => sum + w + 2, 0);
	const hostWidth = Math.max(4, Math.min(width - rest, Math.max(...log.hosts.map(h => [...hostName(h)].length))));
	const row = (host: string, cells: readonly string[]) =>
		[truncate(host, hostWidth).padEnd(hostWidth), ...cells.map((c, i) => c.padStart(SUMMARY_WIDTHS[i]!))].join('  ');
	return [
		row('Host', SUMMARY),
		...log.hosts.map(h => {
			const a = h.analysis;
			const peaks = (['ram', 'swap', 'gpu'] as const).map(kind => fixed(peakOf(a, kind)));
			return row(hostName(h), [
				String(a.records),
				durationOf(a),
				...peaks,
				String(breaches(a)),
				String(a.restarts.length),
			]);
		}),
	];
}

function text(log: LogAnalysis, options: ReportOptions): string {
	const width = Math.max(40, options.width ?? 80);
	const lines: string[] = ['traintop memory report'];
	lines.push(recordsLine(log.records, options));
	lines.push(`Span     ${spanText(log.first, log.last)}`);
	lines.push(`Hosts    ${log.hosts.length}, worst first (peaks in %; breaches: episodes above a threshold)`);
	lines.push(...foldedLines(log));
	const breached = breachedHosts(log);
	lines.push(`Verdict  ${breached ? `BREACHED on ${breached}` : 'no threshold reached on any host'}`);
	lines.push('', ...summaryText(log, width));
	for (const h of log.hosts) {
		const a = h.analysis;
		lines.push('', `━━ ${hostName(h)} `.padEnd(width, '━'));
		lines.push(`Records  ${a.records}`);
		lines.push(`Span     ${spanText(a.first, a.last)}`);
		lines.push(`Verdict  ${a.breached ? 'BREACHED: a metric reached its threshold' : 'no threshold reached'}`);
		lines.push(...analysisBodyText(a, width));
	}
	return lines.map(l => truncate(l, width)).join('\n');
}

// ——— markdown ———

function markdown(log: LogAnalysis, options: ReportOptions): string {
	const out: string[] = ['## traintop memory report', ''];
	const summary: string[][] = [
		['Records', String(log.records)],
		['First', log.first ?? '–'],
		['Last', log.last ?? '–'],
		['Span', spanText(log.first, log.last)],
	];
	if (options.files) summary.push(['Files', String(options.files.length)]);
	if (options.skipped !== undefined) summary.push(['Skipped lines', String(skippedCount(options.skipped))]);
	summary.push(['Hosts', String(log.hosts.length)]);
	for (const line of foldedText(log.folded)) summary.push(['Folded', line]);
	const breached = breachedHosts(log);
	summary.push(['Breached', breached ? `yes, on ${breached}` : 'no']);
	out.push(...table(['Item', 'Value'], summary), '');

	out.push('### Hosts, worst first', '');
	const header = ['Host', 'Records', 'First', 'Last', 'RAM max %', 'Swap max %', 'GPU max %', 'Breaches', 'Restarts'];
	const rows = log.hosts.map(h => {
		const a = h.analysis;
		const peaks = (['ram', 'swap', 'gpu'] as const).map(kind => fixed(peakOf(a, kind)));
		const counts = [String(breaches(a)), String(a.restarts.length)];
		return [hostName(h), String(a.records), a.first ?? '–', a.last ?? '–', ...peaks, ...counts];
	});
	out.push(...table(header, rows), '');

	/** A section with a Host column: every host's rows in turn. */
	const section = (title: string, head: readonly string[], rowsOf: (a: Analysis) => string[][], last = false) => {
		const all = log.hosts.flatMap(h => rowsOf(h.analysis).map(r => [hostName(h), ...r]));
		out.push(`### ${title}`, '');
		if (all.length === 0) out.push('None.');
		else out.push(...table(['Host', ...head], all));
		if (!last) out.push('');
	};
	section('Metrics', METRIC_HEADER, a => a.metrics.map(metricRow));
	section('Episodes above threshold', ['Metric', 'Start', 'End', 'Duration', 'Peak %'], a =>
		a.metrics.flatMap(m => m.episodes.map(e => [m.label, e.start, e.end, formatDuration(e.duration_s), fixed(e.peak)])),
	);
	section('Gaps', ['Start', 'End', 'Duration'], a => a.gaps.map(g => [g.start, g.end, formatDuration(g.duration_s)]));
	section('Restarts', ['Time', 'Reason', 'Detail'], a => a.restarts.map(r => [r.time, r.reason, restartText(r)]), true);
	return out.join('\n');
}

/**
 * The report of a whole log: a log of one host exactly as formatReport has always printed it; several hosts
 * as a table of hosts, worst first, then each host's report.
 */
export function formatLogReport(log: LogAnalysis, options: ReportOptions): string {
	const [only] = log.hosts;
	if (log.hosts.length === 1 && only) return formatReport(only.analysis, options);
	return options.format === 'markdown' ? markdown(log, options) : text(log, options);
}
