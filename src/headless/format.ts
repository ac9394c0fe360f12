import {
	processIdentity,
	type Alert,
	type ExitStatus,
	type GpuReading,
	type GpuState,
	type JobEvent,
	type MetricStatus,
	type RankSet,
} from '../core/types.js';
import type {MemoryGrowth} from '../core/job-types.js';
import type {LogRecord} from '../memlog/record.js';
import type {StatusField} from '../metrics/metric.js';
import {METRICS} from '../metrics/registry.js';
import {gpuStateWords} from '../format/gpu-state.js';
import {rankWords} from '../format/events.js';
import {LEVEL_WORD} from '../format/levels.js';
import {localTime} from '../format/time.js';
import {formatBytes, formatPercent} from '../format/units.js';
import {cgroupLimitWords} from '../core/ram-limit.js';
import {utilizationText} from '../format/gpu-sensors.js';
import {versioned} from '../format/json-version.js';
import {traintopVersion} from '../agent/version.js';
import {printable} from '../format/printable.js';
import {alertWords} from '../format/alert-words.js';

// Pure text for the headless mode. Lines are meant for a tmux pane, `tail -f` or a batch job's .out
// file: one line each, greppable (`grep CRIT`), levels upper-case only when they need attention.

function metricPart(
	label: string,
	value: number | null,
	peak: number | null,
	status: MetricStatus | undefined,
): string {
	const level = status ? ` ${LEVEL_WORD[status.level]}` : '';
	const peakText = peak !== null && value !== null && peak > value + 0.05 ? ` (peak ${formatPercent(peak)})` : '';
	return `${label} ${formatPercent(value)}${level}${peakText}`;
}

/**
 * `ram 42.0% ok`; against the job's cgroup limit when it has one (the level is judged there):
 * `ram (job cgroup limit 2.0 GiB) 95.1% CRIT  host 12.3% of 62.7 GiB`; a GPU's utilisation after it.
 */
function fieldPart(field: StatusField, metrics: Readonly<Record<string, MetricStatus>>): string {
	if ('code' in field) return `${field.field} ${field.code}`;
	const label = field.limit
		? `${field.field} (${cgroupLimitWords(field.limit.scope, field.limit.limitBytes)})`
		: field.field;
	const part = metricPart(label, field.value, field.peak, field.metric === null ? undefined : metrics[field.metric]);
	const util = utilizationText(field.utilizationPercent);
	const host = field.host ? `  host ${formatPercent(field.host.percent)} of ${formatBytes(field.host.totalBytes)}` : '';
	return `${part}${util === '' ? '' : ` ${util}`}${host}`;
}

/**
 * One status line per log record: each metric of the registry that the line shows, with the window's last value,
 * its level, and its peak inside the window when that was higher (a spike that came and went is still shown); a
 * GPU's utilisation after it when the reader gave one (its temperature and power are in the JSON record: eight
 * GPUs' worth would make the line unreadable).
 */
export function formatStatusLine(record: LogRecord, metrics: Readonly<Record<string, MetricStatus>>): string {
	const parts = [localTime(Date.parse(record.timestamp))];
	for (const metric of METRICS) {
		if (metric.words.status !== null) for (const field of metric.status(record)) parts.push(fieldPart(field, metrics));
	}
	return parts.join('  ');
}

/** A WARN/CRIT/OK line for one level change; says which way it moved and against which line. */
export function formatAlertLine(alert: Alert, warnMargin: number): string {
	return `${localTime(alert.time)} ${LEVEL_WORD[alert.to].toUpperCase().padEnd(4)} ${alertWords(alert, warnMargin)} (was ${alert.from})`;
}

/** `8 × NVIDIA H100 80GB HBM3` for a homogeneous node (the usual case), each device listed otherwise. */
function describeDevices(gpus: readonly GpuReading[]): string {
	// The driver's words for a device: a broken or hostile driver may put escapes in them.
	const names = gpus.map(g => (g.name === null ? 'unknown device' : printable(g.name)));
	const count = `${gpus.length} device${gpus.length === 1 ? '' : 's'}`;
	if (names.length > 0 && names.every(name => name === names[0])) return `${count}, ${gpus.length} × ${names[0]}`;
	return `${count}: ${gpus.map((g, i) => `${g.index}: ${names[i]}`).join(', ')}`;
}

/** A line for a change of the GPU reader's state, or null when there is nothing to tell (it is starting). */
export function formatGpuStateLine(state: GpuState, now: number): string | null {
	if (state.status === 'starting') return null;
	const {problem, warning} = gpuStateWords(state, now);
	if (problem !== null) return `GPU: ${problem.what}${problem.why === null ? '' : ` — ${problem.why}`}`;
	const devices = state.status === 'ok' ? describeDevices(state.gpus) : '';
	return `GPU: ${devices}${warning === null ? '' : ` — ${warning}`}`;
}

/**
 * `ranks: rank 0 (pid 100), rank 1 (pid 101) found; launcher pid 10` for ranks first seen in this scan; null
 * when none is new. Ranks leaving, stopping and stalling are the job's events (formatEventLine).
 */
export function describeRanksFound(previous: RankSet | null, next: RankSet): string | null {
	const before = new Set((previous?.ranks ?? []).map(processIdentity));
	const appeared = next.ranks.filter(r => !before.has(processIdentity(r)));
	if (appeared.length === 0) return null;
	const launcher = next.launcher ? `; launcher pid ${next.launcher.pid}` : '';
	return `ranks: ${appeared.map(rankWords).join(', ')} found${launcher}`;
}

/**
 * `2026-11-22 12:03:11 WARN job torchrun:4200 ended, exit 99 — saved for requeue`: the level word only where it
 * needs attention (an ok event, a save seen, reads as plain news), so `grep CRIT` finds the crashes.
 */
export function formatEventLine(event: JobEvent): string {
	const level = event.level === 'ok' ? '' : `${LEVEL_WORD[event.level]} `;
	return `${localTime(event.time)} ${level}${printable(event.text)}`;
}

/** An event in --json, beside the log records (which have no `event` key): snake_case as the records. */
export interface EventRecord {
	readonly event: JobEvent['kind'];
	/** ISO 8601, UTC. */
	readonly time: string;
	readonly job: string | null;
	readonly rank: number | null;
	readonly pid: number | null;
	readonly level: JobEvent['level'];
	readonly text: string;
	/** How the rank or job ended (rank-exited, job-ended); null for the other kinds and when unknown. */
	readonly exit: {readonly code: number | null; readonly signal: string | null} | null;
	readonly checkpoint?: string;
	/** memory-growing and memory-steady: the process's role, its rate and when the job reaches its RAM line. */
	readonly growth?: {
		readonly role: 'rank' | 'worker';
		readonly bytes_per_min: number | null;
		readonly reaches_threshold_at: string | null;
	};
}

export function eventRecord(event: JobEvent): EventRecord {
	const exit: ExitStatus | null = event.exit ?? null;
	return {
		event: event.kind,
		time: new Date(event.time).toISOString(),
		job: event.job,
		rank: event.rank,
		pid: event.pid,
		level: event.level,
		text: event.text,
		exit: exit && {code: exit.code, signal: exit.signal},
		...(event.checkpoint === undefined ? {} : {checkpoint: event.checkpoint}),
		...(event.growth === undefined ? {} : {growth: growthRecord(event.growth)}),
	};
}

/** A whole number of bytes per minute, and an ISO time. */
function growthRecord(growth: MemoryGrowth): NonNullable<EventRecord['growth']> {
	const {role, bytesPerMin, reachesThresholdAt} = growth;
	return {
		role,
		bytes_per_min: bytesPerMin === null ? null : Math.round(bytesPerMin),
		reaches_threshold_at: reachesThresholdAt === null ? null : new Date(reachesThresholdAt).toISOString(),
	};
}

/**
 * --json's first line, `{"schema_version":1,"event":"start",…}`: the version of the stream's own objects (this
 * line, the events) for a script to check before it reads on. The log records between the events keep the memory
 * log's format (docs/configuration.md "Memory log format"), which a reader tells apart by their `timestamp` and
 * lack of `event`.
 * One node names its `host`; many nodes list theirs in `hosts`.
 */
export function startRecord(
	where: {readonly host: string; readonly time: number} | {readonly hosts: readonly string[]; readonly time: number},
) {
	const {time, ...place} = where;
	return versioned({event: 'start' as const, time: new Date(time).toISOString(), version: traintopVersion(), ...place});
}
