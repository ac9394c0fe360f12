// Pure parsing of `nvidia-smi --query-… --format=csv,noheader,nounits` output. No I/O: the query loop in
// nvidia-smi-loop.ts feeds lines in and gets rows (or the text that was not a row) back.

import type {GpuProcess, GpuReading} from '../core/types.js';
import {healthOf, isHealthField, type HealthField} from './nvidia-smi-health-cells.js';

/**
 * The device fields every driver in use answers (gpustat asked for the same ones in 2016), in the order the parser
 * expects them. `count` tells when a sample is complete; `timestamp` groups the rows of one sample.
 */
const GPU_BASE_FIELDS = [
	'timestamp',
	'count',
	'index',
	'uuid',
	'name',
	'memory.total',
	'memory.used',
	'utilization.gpu',
] as const;

/**
 * Sensors asked for after the base fields. Every driver in the recordings that was asked for them knew them, from a
 * 2018 GTX 770 (`[Not Supported]` values) and driver 440 to 610 (`power.draw` there is the average where the GPU has
 * one, else the instant reading; its `power.draw.instant`/`.average` split is newer and left out). Still, one field a
 * driver does not know makes it refuse the WHOLE query (`Field "x" is not a valid field to query.`, exit 2), so the
 * loop drops a sensor it names (`dropRejectedField`) and asks again: memory must never be lost for a temperature.
 */
export const GPU_SENSOR_FIELDS = ['temperature.gpu', 'power.draw', 'power.limit'] as const;

/** The loop's first query: the base fields, then the sensors. */
export const GPU_QUERY_FIELDS = [...GPU_BASE_FIELDS, ...GPU_SENSOR_FIELDS] as const;

export type GpuField = (typeof GPU_QUERY_FIELDS)[number];

/** A field the loop may ask for: the base fields and sensors, then the health fields the driver knows. */
export type QueryField = GpuField | HealthField;

/**
 * Per-process fields. Never `process_name`: it is printed unquoted and may itself contain ", " (a command line),
 * which would shift every column after it. Names come from /proc/<pid>/cmdline instead.
 * `used_gpu_memory` is the canonical name (`used_memory` is an alias).
 */
export const COMPUTE_APPS_FIELDS = ['gpu_uuid', 'pid', 'used_gpu_memory'] as const;

/** nvidia-smi reports memory in MiB. */
export const BYTES_PER_MIB = 1_048_576;

const CSV_FORMAT = '--format=csv,noheader,nounits';

/** Arguments of the long-lived device loop (one sample every `intervalMs`). */
export function gpuLoopArgs(intervalMs: number, fields: readonly QueryField[] = GPU_QUERY_FIELDS): string[] {
	return [`--query-gpu=${fields.join(',')}`, CSV_FORMAT, '-lms', String(Math.max(1, Math.round(intervalMs)))];
}

/**
 * The field a driver refused the query for (`Field "power.draw" is not a valid field to query.`), when it is a sensor
 * or a health field still in `fields`: the fields to ask for next, without it. null for any other text (a base field
 * refused is an error like any other: there is nothing to drop).
 */
export function dropRejectedField(fields: readonly QueryField[], text: string): QueryField[] | null {
	const match =
		/^\s*Field\s+["\u201c\u201d]?([^"\u201c\u201d\s]+)["\u201c\u201d]?\s+is not a valid field to query/.exec(text);
	const rejected = match?.[1];
	if (rejected === undefined) return null;
	if (!(GPU_SENSOR_FIELDS as readonly string[]).includes(rejected) && !isHealthField(rejected)) return null;
	return fields.includes(rejected as QueryField) ? fields.filter(field => field !== rejected) : null;
}

/** Arguments of the per-process one-shot. */
export function computeAppsArgs(): string[] {
	return [`--query-compute-apps=${COMPUTE_APPS_FIELDS.join(',')}`, CSV_FORMAT];
}

/** Values are ", "-separated and never quoted; a trailing \r (Windows, or a CRLF pipe) is not part of the last value. */
export function splitCsvLine(line: string): string[] {
	return line
		.replace(/\r$/, '')
		.split(', ')
		.map(cell => cell.trim());
}

/**
 * nvidia-smi's "no value" markers: `[N/A]`, `[Not Supported]` (older drivers), `[Unknown Error]`,
 * `[Insufficient Permissions]`, `[Requested functionality has been deprecated]`, any other bracketed text, and the bare
 * `N/A` of driver 440.
 */
export function isUnavailable(cell: string): boolean {
	const value = cell.trim();
	return /^\[.*\]$/.test(value) || /^N\/A$/i.test(value);
}

/** A text value, or null for a marker or an empty cell. */
function parseText(cell: string): string | null {
	const value = cell.trim();
	return value === '' || isUnavailable(value) ? null : value;
}

/**
 * A number, null for a marker, undefined for anything else (which means the line is not a row).
 * A unit suffix is tolerated in case `nounits` was ignored ("2566 MiB", "52 %", "106.56 W").
 */
export function parseNumber(cell: string): number | null | undefined {
	const value = cell.trim();
	if (isUnavailable(value)) return null;
	const match = /^(-?\d+(?:\.\d+)?)(?: ?(?:MiB|%|W))?$/.exec(value);
	return match?.[1] === undefined ? undefined : Number(match[1]);
}

function parseCount(cell: string): number | undefined {
	return /^\d+$/.test(cell) ? Number(cell) : undefined;
}

export function memoryPercent(usedBytes: number | null, totalBytes: number | null): number | null {
	if (usedBytes === null || totalBytes === null || totalBytes <= 0) return null;
	return (usedBytes / totalBytes) * 100;
}

function mibToBytes(mib: number | null): number | null {
	return mib === null ? null : mib * BYTES_PER_MIB;
}

/** One line of output: a row, a line that is not a row (header, WARNING, Xid/ECC event, error, fragment), or blank. */
export type ParsedLine<Row> =
	| {readonly kind: 'row'; readonly row: Row}
	| {readonly kind: 'text'; readonly text: string}
	| {readonly kind: 'blank'};

export interface GpuRow {
	/** Shared by every row of one sample. */
	readonly timestamp: string;
	/** How many GPU rows the sample has. */
	readonly count: number;
	readonly reading: GpuReading;
}

function textOrBlank<Row>(line: string): ParsedLine<Row> {
	const text = line.replace(/\r$/, '');
	return text.trim() === '' ? {kind: 'blank'} : {kind: 'text', text};
}

/** A sensor's value: null when not asked for or marked N/A, undefined when the cell is not a number (not a row). */
function sensor(cells: readonly string[], fields: readonly QueryField[], field: GpuField): number | null | undefined {
	const at = fields.indexOf(field);
	return at < 0 ? null : parseNumber(cells[at] ?? '');
}

/**
 * Parses one line of the loop. `fields` is what the loop asked for: `GPU_QUERY_FIELDS`, or fewer sensors after a
 * driver refused one, then the health fields it knows; a sensor not asked for reads null, as one marked N/A does.
 */
export function parseGpuLine(line: string, fields: readonly QueryField[] = GPU_QUERY_FIELDS): ParsedLine<GpuRow> {
	const cells = splitCsvLine(line);
	if (cells.length !== fields.length) return textOrBlank(line);
	const [timestampCell, countCell, indexCell, uuidCell, nameCell, totalCell, usedCell, utilizationCell] = cells as [
		string,
		string,
		string,
		string,
		string,
		string,
		string,
		string,
	];
	const timestamp = parseText(timestampCell);
	const count = parseCount(countCell);
	const index = parseCount(indexCell);
	const totalMib = parseNumber(totalCell);
	const usedMib = parseNumber(usedCell);
	const utilization = parseNumber(utilizationCell);
	const temperature = sensor(cells, fields, 'temperature.gpu');
	const powerDraw = sensor(cells, fields, 'power.draw');
	const powerLimit = sensor(cells, fields, 'power.limit');
	if (
		timestamp === null ||
		count === undefined ||
		count === 0 ||
		index === undefined ||
		totalMib === undefined ||
		usedMib === undefined ||
		utilization === undefined ||
		temperature === undefined ||
		powerDraw === undefined ||
		powerLimit === undefined
	) {
		return textOrBlank(line);
	}
	const memoryTotalBytes = mibToBytes(totalMib);
	const memoryUsedBytes = mibToBytes(usedMib);
	// Read only when asked for, so that a reading without health fields has no `health` key at all.
	const health = healthOf(cells, fields);
	return {
		kind: 'row',
		row: {
			timestamp,
			count,
			reading: {
				index,
				uuid: parseText(uuidCell),
				name: parseText(nameCell),
				memoryTotalBytes,
				memoryUsedBytes,
				memoryPercent: memoryPercent(memoryUsedBytes, memoryTotalBytes),
				utilizationPercent: utilization,
				temperatureC: temperature,
				powerDrawW: powerDraw,
				powerLimitW: powerLimit,
				...(health === undefined ? {} : {health}),
			},
		},
	};
}

/** Parses one line of the `COMPUTE_APPS_FIELDS` one-shot. */
export function parseComputeAppsLine(line: string): ParsedLine<GpuProcess> {
	const cells = splitCsvLine(line);
	if (cells.length !== COMPUTE_APPS_FIELDS.length) return textOrBlank(line);
	const [uuidCell, pidCell, usedCell] = cells as [string, string, string];
	const pid = parseCount(pidCell);
	const usedMib = parseNumber(usedCell);
	if (pid === undefined || pid === 0 || usedMib === undefined) return textOrBlank(line);
	return {kind: 'row', row: {pid, gpuUuid: parseText(uuidCell), usedBytes: mibToBytes(usedMib)}};
}

/** The whole output of one compute-apps call. Empty output means no processes (not an error). */
export function parseComputeAppsOutput(output: string): {processes: GpuProcess[]; textLines: string[]} {
	const processes: GpuProcess[] = [];
	const textLines: string[] = [];
	for (const line of output.split('\n')) {
		const parsed = parseComputeAppsLine(line);
		if (parsed.kind === 'row') processes.push(parsed.row);
		else if (parsed.kind === 'text') textLines.push(parsed.text);
	}
	return {processes, textLines};
}

/** Non-fatal text printed next to valid data, e.g. "WARNING: infoROM is corrupted at gpu 0000:0B:00.0" (exit 14). */
export function isWarningLine(text: string): boolean {
	return /^\s*WARNING\b/i.test(text);
}

/** The first line worth showing a user, trimmed; null when there is none. */
export function firstMeaningfulLine(lines: readonly string[]): string | null {
	for (const line of lines) {
		const text = line.trim();
		if (text !== '') return text;
	}
	return null;
}

export interface GpuSample {
	readonly timestamp: string;
	/** Sorted by index. */
	readonly gpus: readonly GpuReading[];
}

/**
 * Groups loop rows into samples. Rows of one sample share `timestamp`; a sample is complete when `count` rows with
 * that timestamp have arrived, so it is published at once instead of one interval later. A row with a new timestamp
 * also closes the previous sample, even short of `count` rows (a GPU whose row was replaced by an error line should
 * not hide the others).
 */
export class GpuSampleAssembler {
	#pending: {timestamp: string; count: number; gpus: GpuReading[]} | null = null;

	push(row: GpuRow): GpuSample[] {
		const complete: GpuSample[] = [];
		if (this.#pending !== null && this.#pending.timestamp !== row.timestamp) {
			complete.push(this.#close(this.#pending));
			this.#pending = null;
		}
		this.#pending ??= {timestamp: row.timestamp, count: row.count, gpus: []};
		this.#pending.gpus.push(row.reading);
		if (this.#pending.gpus.length >= this.#pending.count) {
			complete.push(this.#close(this.#pending));
			this.#pending = null;
		}
		return complete;
	}

	/** Drops a sample in progress (after a restart its remaining rows will never come). */
	reset(): void {
		this.#pending = null;
	}

	#close(pending: {timestamp: string; gpus: GpuReading[]}): GpuSample {
		return {timestamp: pending.timestamp, gpus: [...pending.gpus].sort((a, b) => a.index - b.index)};
	}
}
