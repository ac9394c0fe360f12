import {writeFile} from 'node:fs/promises';
import type {Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {thresholdsFrom} from '../config/thresholds.js';
import {EXIT, UsageError} from '../core/errors.js';
import {analyzeLog} from '../memlog/analyze-log.js';
import {plotLogSvg} from '../memlog/plot.js';
import {readSeries, resolveInputs} from '../memlog/reader.js';
import {formatLogReport} from '../memlog/report-hosts.js';
import {ANALYZE_JSON_SCHEMA_VERSION, logJson} from '../memlog/report-json.js';
import {describeSkipped, SkippedLines} from '../memlog/skipped-lines.js';
import {printable} from '../format/printable.js';

export interface AnalyzeOptions {
	/** Files, globs or run dirs; none = the current directory as a run dir. */
	readonly inputs: readonly string[];
	readonly settings: Settings;
	readonly format: 'text' | 'markdown' | 'json';
	/** Where to write the SVG chart, if anywhere. */
	readonly plot: string | null;
	readonly failOnBreach: boolean;
	/** Only this host's records (`--host`); null: every host, each its own series. */
	readonly host?: string | null;
	readonly stdout: Writable;
	readonly stderr: Writable;
	readonly columns?: number;
}

/**
 * `traintop --analyze PATH...`: streams every record once into numeric series (constant memory in
 * the file size), splits them by host (each host its own series, or only `--host`'s), analyses them with the same
 * thresholds the live monitor uses, and prints the report. Exit 4 with --fail-on-breach when any metric of any
 * host reached its threshold.
 */
export async function runAnalyzeCommand(o: AnalyzeOptions): Promise<number> {
	if (o.host === '') throw new UsageError('--host needs the name of a host the logs hold');
	const files = await resolveInputs(o.inputs.length > 0 ? o.inputs : ['.']);
	// Counts and the first lines of each reason: constant memory however many lines are bad.
	const skipped = new SkippedLines();
	const series = await readSeries(files, skipped, o.host ? {keepHost: o.host} : {});
	const log = analyzeLog(series, thresholdsFrom(o.settings), {
		host: o.host ?? null,
		// Each GPU: its --gpu-thresholds entry > its line in the log > --gpu-threshold (memlog/gpu-lines.ts).
		gpuLines: {byUuid: o.settings.gpuThresholds},
	});
	const json = logJson(log, {skipped: skipped.examples});
	for (const {file, reason} of skipped.filesLeftOut) {
		o.stderr.write(`traintop: left out ${printable(file)}: ${printable(reason)}\n`);
	}

	if (o.plot) {
		try {
			await writeFile(o.plot, plotLogSvg(log));
		} catch (error) {
			throw new UsageError(`cannot write the plot ${printable(o.plot)}: ${printable((error as Error).message)}`);
		}
	}
	if (o.format === 'json') {
		// schema_version first: a reader checks it before it reads anything else.
		// `skipped` holds the first lines of each reason; the counts of all of them come after it.
		const counts = {
			skipped_total: skipped.total,
			skipped_by_reason: Object.fromEntries(skipped.reasons.map(r => [r.reason, r.count])),
			files_left_out: skipped.filesLeftOut,
		};
		o.stdout.write(
			`${JSON.stringify({schema_version: ANALYZE_JSON_SCHEMA_VERSION, files, ...json, ...counts}, null, 2)}\n`,
		);
	} else {
		o.stdout.write(
			`${formatLogReport(log, {format: o.format, width: Math.min(o.columns ?? 80, 120), files, skipped: skipped.total})}\n`,
		);
		o.stderr.write(describeSkipped(skipped));
		if (o.plot) o.stderr.write(`traintop: wrote ${printable(o.plot)}\n`);
	}
	return o.failOnBreach && json.breached ? EXIT.breach : EXIT.ok;
}
