import type {Analysis} from './analyze.js';
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

// The report of `traintop --analyze` on the log of one host: plain text for the terminal (fits 80 columns) and
// Markdown tables for an incident note. A log of several hosts is report-hosts.ts's; the JSON is report-json.ts's.

function text(analysis: Analysis, options: ReportOptions): string {
	const width = Math.max(40, options.width ?? 80);
	const lines: string[] = ['traintop memory report'];
	lines.push(recordsLine(analysis.records, options));
	lines.push(`Span     ${spanText(analysis.first, analysis.last)}`);
	if (analysis.hosts.length > 0) lines.push(`Hosts    ${analysis.hosts.map(printable).join(', ')}`);
	lines.push(...foldedLines(analysis));
	lines.push(`Verdict  ${analysis.breached ? 'BREACHED: a metric reached its threshold' : 'no threshold reached'}`);
	lines.push(...analysisBodyText(analysis, width));
	return lines.map(l => truncate(l, width)).join('\n');
}

function markdown(analysis: Analysis, options: ReportOptions): string {
	const out: string[] = ['## traintop memory report', ''];
	const summary: string[][] = [
		['Records', String(analysis.records)],
		['First', analysis.first ?? '–'],
		['Last', analysis.last ?? '–'],
		['Span', spanText(analysis.first, analysis.last)],
	];
	if (options.files) summary.push(['Files', String(options.files.length)]);
	if (options.skipped !== undefined) summary.push(['Skipped lines', String(skippedCount(options.skipped))]);
	if (analysis.hosts.length > 0) summary.push(['Hosts', analysis.hosts.map(printable).join(', ')]);
	for (const line of foldedText(analysis.folded)) summary.push(['Folded', line]);
	summary.push(['Breached', analysis.breached ? 'yes' : 'no']);
	out.push(...table(['Item', 'Value'], summary), '');

	out.push('### Metrics', '');
	out.push(...table(METRIC_HEADER, analysis.metrics.map(metricRow)), '');
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

/** The report of one host's analysis as text (≤ width columns) or Markdown. */
export function formatReport(analysis: Analysis, options: ReportOptions): string {
	return options.format === 'markdown' ? markdown(analysis, options) : text(analysis, options);
}
