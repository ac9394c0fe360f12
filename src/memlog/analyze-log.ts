import {UsageError} from '../core/errors.js';
import {printable} from '../format/printable.js';
import {type Analysis, type AnalysisThresholds, type AnalyzeOptions, analyze} from './analyze.js';
import {splitByHost} from './by-host.js';
import type {Folded} from './fold.js';
import type {Series} from './series-types.js';

// `--analyze` over a whole log: one analysis per host (a multi-node job's logs hold several), ranked worst first,
// or the one host `--host` picks.

export interface HostAnalysis {
	/** The host its records name (by-host.ts NO_HOST for those that name none); null when no record names one. */
	readonly host: string | null;
	readonly series: Series;
	readonly analysis: Analysis;
	/** The highest of its metrics' max ÷ threshold: 1 or more is a breach, and the closer to it the worse. */
	readonly severity: number;
}

export interface LogAnalysis {
	/** Worst first (severity, then name). One entry for a log of one host: reported as such logs always were. */
	readonly hosts: readonly HostAnalysis[];
	/** Records of every host; ISO times of the earliest and the latest. */
	readonly records: number;
	readonly first: string | null;
	readonly last: string | null;
	/** Any metric of any host at or above its threshold at any point. */
	readonly breached: boolean;
	readonly thresholds: AnalysisThresholds;
	/** Hosts and GPUs past the caps (fold.ts); empty when none. */
	readonly folded: readonly Folded[];
}

export interface LogAnalyzeOptions extends AnalyzeOptions {
	/** Only this host's records (`--host`); a name the log does not hold is a UsageError listing those it does. */
	readonly host?: string | null;
}

function severityOf(analysis: Analysis): number {
	let worst = 0;
	for (const m of analysis.metrics) if (m.worst_ratio > worst) worst = m.worst_ratio;
	return worst;
}

/** node2 before node10. */
const byName = new Intl.Collator('en', {numeric: true}).compare;

/** Hosts named in a message: the first few, shown escaped (a log's words), then how many more. */
function hostList(hosts: readonly string[]): string {
	const shown = [...hosts].sort(byName).slice(0, HOSTS_NAMED).map(printable).join(', ');
	return hosts.length > HOSTS_NAMED ? `${shown} and ${hosts.length - HOSTS_NAMED} more` : shown;
}

/** Hosts a message names before "and N more". */
const HOSTS_NAMED = 20;

/** Analyse every host of the log (or the one `options.host` names) against the live monitor's threshold rules. */
export function analyzeLog(
	series: Series,
	thresholds: AnalysisThresholds,
	options: LogAnalyzeOptions = {},
): LogAnalysis {
	const wanted = options.host ?? undefined;
	const parts = splitByHost(series, wanted);
	if (parts.length === 0) {
		throw new UsageError(
			series.hosts.length === 0
				? `--host ${printable(wanted ?? '')}: the logs' records name no host`
				: `--host ${printable(wanted ?? '')}: no record of that host in the logs; they hold ${hostList(series.hosts)}`,
		);
	}
	const hosts = parts
		.map(({host, series: own}) => {
			const analysis = analyze(own, thresholds, options);
			return {host, series: own, analysis, severity: severityOf(analysis)};
		})
		.sort((a, b) => b.severity - a.severity || byName(a.host ?? '', b.host ?? ''));
	// ISO times of one format (toISOString) order as text.
	const firsts = hosts.flatMap(h => h.analysis.first ?? []).sort();
	const lasts = hosts.flatMap(h => h.analysis.last ?? []).sort();
	return {
		hosts,
		records: hosts.reduce((sum, h) => sum + h.analysis.records, 0),
		first: firsts[0] ?? null,
		last: lasts.at(-1) ?? null,
		breached: hosts.some(h => h.analysis.breached),
		thresholds,
		folded: series.folded,
	};
}
