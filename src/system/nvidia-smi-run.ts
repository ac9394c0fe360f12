import type {ChildProcess} from 'node:child_process';
import {
	dropRejectedField,
	firstMeaningfulLine,
	isWarningLine,
	parseGpuLine,
	type QueryField,
	type GpuSample,
	type GpuSampleAssembler,
} from './nvidia-smi-parse.js';

// One run of nvidia-smi's device loop as the loop supervisor (nvidia-smi-loop.ts) sees it: what each line it prints
// is (rows, a driver warning, text kept for the error message), and what its end means (ask again with fewer fields,
// keep the data, or an error in its own words). Pure but for the run's own fields: no timers, no processes.

/** Non-row lines kept per loop run for error messages; Xid/ECC noise must not grow without bound. */
const TEXT_LINES_KEPT = 20;

/** One run of the device loop, from spawn to its end. */
export interface LoopRun {
	readonly child: ChildProcess;
	/** What this run asked for, so its rows are read against its own columns. */
	readonly fields: readonly QueryField[];
	readonly assembler: GpuSampleAssembler;
	/** Lines that were not rows since the last sample: what nvidia-smi said if it fails now. */
	text: string[];
	warning: string | null;
	samples: number;
	watchdog: NodeJS.Timeout | null;
	/** Set once the run is handled (exited, abandoned or stopped): late events of its child are ignored. */
	finished: boolean;
}

/** stderr never carries rows; treat every line as text. */
function parseGpuLineAsText(line: string): {kind: 'text'; text: string} | {kind: 'blank'} {
	const text = line.replace(/\r$/, '');
	return text.trim() === '' ? {kind: 'blank'} : {kind: 'text', text};
}

/** What a line was: samples it completed, a driver warning (now `run.warning`), or other text (kept) or nothing. */
export type RunLine =
	| {readonly kind: 'samples'; readonly samples: readonly GpuSample[]}
	| {readonly kind: 'warning' | 'other'};

export function readRunLine(run: LoopRun, line: string, stream: 'stdout' | 'stderr'): RunLine {
	// NVML errors come on stdout, so both streams are read; only stdout carries rows.
	const parsed = stream === 'stdout' ? parseGpuLine(line, run.fields) : parseGpuLineAsText(line);
	if (parsed.kind === 'blank') return {kind: 'other'};
	if (parsed.kind === 'row') return {kind: 'samples', samples: run.assembler.push(parsed.row)};
	if (isWarningLine(parsed.text)) {
		run.warning = parsed.text.trim();
		return {kind: 'warning'};
	}
	// Headers, Xid/ECC event text between samples, error text: kept for the message if no sample follows.
	run.text.push(parsed.text);
	if (run.text.length > TEXT_LINES_KEPT) run.text.shift();
	return {kind: 'other'};
}

/** What the end of a run means for the next one. */
export type RunEnd =
	/** An older driver refused a sensor or health field before any sample: ask again at once without it. */
	| {readonly kind: 'fewer-fields'; readonly fields: QueryField[]}
	/** Valid data, a warning and a non-zero exit (infoROM corrupted, 14): keep the data, start it again. */
	| {readonly kind: 'keep'}
	| {readonly kind: 'error'; readonly message: string};

export function runEnd(run: LoopRun, code: number | null, signal: NodeJS.Signals | null, stateOk: boolean): RunEnd {
	if (run.samples === 0) {
		for (const line of run.text) {
			const fewer = dropRejectedField(run.fields, line);
			if (fewer !== null) return {kind: 'fewer-fields', fields: fewer};
		}
	}
	const said = firstMeaningfulLine(run.text);
	if (said === null && run.warning !== null && run.samples > 0 && stateOk) return {kind: 'keep'};
	const how = signal !== null ? `killed by ${signal}` : `exit ${code}`;
	return {kind: 'error', message: `${said ?? run.warning ?? 'nvidia-smi exited unexpectedly'} (${how})`};
}
