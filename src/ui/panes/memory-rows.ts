import type {GpuState, HostCpu, HostMemory, Level, MetricId, MetricStatus} from '../../core/types.js';
import {gpuHealthProblems, worstHealthLevel} from '../../core/gpu-health.js';
import {gpuMetricId} from '../../core/metric-id.js';
import {gpuHealthLine} from '../../format/gpu-health.js';
import {LEVEL_TAG, worse} from '../../format/levels.js';
import {formatBytes, formatPercent} from '../../format/units.js';
import {cgroupLimitWords} from '../../core/ram-limit.js';
import type {DeviceSensors, GaugeReading, MetricEntry, MetricSource, Missing} from '../../metrics/metric.js';
import {METRICS} from '../../metrics/registry.js';

// Pure data for MemoryPane: one entry per gauge, from the metric registry's entries that have a gauge on the pane:
// the host's (one line each: RAM, swap) and the devices' (the GPUs, packed several to a line).

export interface GaugeRow {
	readonly metric: MetricId;
	readonly label: string;
	readonly percent: number | null;
	readonly level: Level;
	readonly threshold: number | null;
	readonly peak: number | null;
	readonly usedBytes: number | null;
	readonly totalBytes: number | null;
	readonly headroomBytes: number | null;
	/** The value and its judgement are from the last reading: this one failed. */
	readonly stale: boolean;
	/** A device's utilisation, temperature and power (null where it has none); null for RAM and swap. */
	readonly sensors: DeviceSensors | null;
}

/** Bytes between what is used and the threshold (negative over it); null when a size is unknown. */
function headroomBytes(
	totalBytes: number | null,
	usedBytes: number | null,
	thresholdPercent: number | null,
): number | null {
	if (totalBytes === null || usedBytes === null || thresholdPercent === null) return null;
	return (totalBytes * thresholdPercent) / 100 - usedBytes;
}

function row(label: string, reading: GaugeReading, metrics: Readonly<Record<MetricId, MetricStatus>>): GaugeRow {
	const status = metrics[reading.metric];
	// The core judges levels; before its first judgement a gauge is plain ok, never guessed here.
	const threshold = status?.threshold ?? null;
	return {
		metric: reading.metric,
		label,
		percent: reading.percent,
		level: status?.level ?? 'ok',
		threshold,
		peak: status?.peak ?? null,
		usedBytes: reading.usedBytes,
		totalBytes: reading.totalBytes,
		headroomBytes: headroomBytes(reading.totalBytes, reading.usedBytes, threshold),
		stale: status?.stale === true,
		sensors: reading.sensors,
	};
}

const onPane = (metric: MetricEntry) => metric.words.pane !== null;

/** A host metric's line: its gauge, or why it has none (the pane words it). */
export type HostLine = {readonly label: string} & ({readonly row: GaugeRow} | {readonly missing: Missing});

/** One line per host metric with a gauge on the pane, in the registry's order (RAM first: what jobs die of). */
export function hostLines(source: MetricSource, metrics: Readonly<Record<MetricId, MetricStatus>>): HostLine[] {
	return METRICS.filter(m => onPane(m) && !m.perDevice).map(metric => {
		const label = metric.words.pane!;
		const gauges = metric.gauges(source);
		return typeof gauges === 'string' || gauges[0] === undefined
			? {label, missing: typeof gauges === 'string' ? gauges : 'none'}
			: {label, row: row(label, gauges[0], metrics)};
	});
}

/** Every device's gauge (`GPU0`, `GPU1`…); none while a device reader has no sample (the pane says its state). */
export function deviceRows(source: MetricSource, metrics: Readonly<Record<MetricId, MetricStatus>>): GaugeRow[] {
	return METRICS.filter(m => onPane(m) && m.perDevice).flatMap(metric => {
		const gauges = metric.gauges(source);
		return typeof gauges === 'string' ? [] : gauges.map(g => row(`${metric.words.pane}${g.index}`, g, metrics));
	});
}

/**
 * `RAM (job cgroup limit 2.0 GiB; host 12.3% of 62.7 GiB)` for the title line when the RAM gauge is against a
 * cgroup limit, so that a gauge at 95 % beside a host at 12 % reads as what it is; null without a limit.
 */
export function ramLimitText(memory: HostMemory | null): string | null {
	const cgroup = memory?.cgroup;
	if (!memory || !cgroup) return null;
	const host = `host ${formatPercent(memory.ram.percent)} of ${formatBytes(memory.ram.totalBytes)}`;
	return `RAM (${cgroupLimitWords(cgroup.scope, cgroup.limitBytes)}; ${host})`;
}

/** Which sensor columns the GPU lines of a pane have: those that at least one GPU reports. */
export interface SensorColumns {
	readonly utilization: boolean;
	readonly temperature: boolean;
	readonly power: boolean;
}

export function sensorColumns(gpus: readonly GaugeRow[]): SensorColumns {
	const any = (pick: (sensors: DeviceSensors) => number | null | undefined) =>
		gpus.some(g => g.sensors !== null && Number.isFinite(pick(g.sensors)));
	return {
		utilization: any(s => s.utilizationPercent),
		temperature: any(s => s.temperatureC),
		power: any(s => s.powerDrawW),
	};
}

/**
 * The line standing in for GPU gauges that do not fit: how many, and the worst of them, so a
 * critical GPU is never hidden behind "+3 more".
 */
export function hiddenGpusText(hidden: readonly GaugeRow[], anyShown: boolean): string {
	let worst: GaugeRow | null = null;
	for (const gauge of hidden) {
		if (
			worst === null ||
			worse(gauge.level, worst.level) !== worst.level ||
			(gauge.level === worst.level && (gauge.percent ?? -1) > (worst.percent ?? -1))
		) {
			worst = gauge;
		}
	}
	const tag = worst === null || worst.level === 'ok' ? '' : ` ${LEVEL_TAG[worst.level]}`;
	const highest = worst ? `; highest ${worst.label} ${formatPercent(worst.percent)}${tag}` : '';
	return `${anyShown ? '+' : ''}${hidden.length}${anyShown ? ' more' : ''} GPU${hidden.length === 1 ? '' : 's'}${highest}`;
}

/** `CPU 12% of 16 cores · load 9.8 7.2 5.1` for the title line; null when the host CPU is not read. */
export function cpuText(cpu: HostCpu | null | undefined): string | null {
	if (!cpu) return null;
	const cores = `${cpu.cores} core${cpu.cores === 1 ? '' : 's'}`;
	const busy = cpu.percent === null ? `CPU (${cores})` : `CPU ${cpu.percent.toFixed(0)}% of ${cores}`;
	return cpu.load ? `${busy} · load ${cpu.load.map(n => n.toFixed(2)).join(' ')}` : busy;
}

/** A GPU's health problems as its gauge line says them: `thermal slowdown; 3 uncorrectable ECC`, at the worst level. */
export interface GpuHealthMark {
	readonly text: string;
	readonly level: Level;
}

/** Each GPU's health words, by its metric id (`gpu2`); a GPU with nothing to say (or no health read) has none. */
export function gpuHealthMarks(gpu: GpuState): ReadonlyMap<MetricId, GpuHealthMark> {
	const marks = new Map<MetricId, GpuHealthMark>();
	if (gpu.status !== 'ok') return marks;
	for (const reading of gpu.gpus) {
		const problems = gpuHealthProblems(reading.health);
		if (problems.length > 0)
			marks.set(gpuMetricId(reading.index), {text: gpuHealthLine(problems), level: worstHealthLevel(problems)});
	}
	return marks;
}

/** Blank columns before the health words. */
const HEALTH_GAP = 2;

/**
 * Columns the health words take at the end of every GPU gauge while any GPU has some (the same for all, so that the
 * bars line up): the longest words, but at most a third of the gauge; 0 when no GPU has anything to say.
 */
export function healthColumnWidth(marks: ReadonlyMap<MetricId, GpuHealthMark>, gaugeWidth: number): number {
	let longest = 0;
	for (const mark of marks.values()) longest = Math.max(longest, mark.text.length);
	return longest === 0 ? 0 : Math.min(HEALTH_GAP + longest, Math.floor(gaugeWidth / 3));
}

/**
 * The worst health problem among GPUs that did not fit (`; GPU6 3 uncorrectable ECC`), so that a failing GPU is never
 * hidden behind "+3 more" either; '' when none of them has a warning or worse.
 */
export function hiddenHealthText(hidden: readonly GaugeRow[], marks: ReadonlyMap<MetricId, GpuHealthMark>): string {
	let worst: {label: string; mark: GpuHealthMark} | null = null;
	for (const gauge of hidden) {
		const mark = marks.get(gauge.metric);
		if (mark === undefined || mark.level === 'ok') continue;
		if (worst === null || worse(mark.level, worst.mark.level) !== worst.mark.level) worst = {label: gauge.label, mark};
	}
	return worst === null ? '' : `; ${worst.label} ${worst.mark.text}`;
}
