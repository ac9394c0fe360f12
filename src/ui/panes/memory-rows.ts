import {gpuMetricId} from '../../core/metric-id.js';
import type {GpuReading, GpuState, HostCpu, HostMemory, Level, MetricId, MetricStatus} from '../../core/types.js';
import {LEVEL_TAG, worse} from '../../format/levels.js';
import {formatAge} from '../../format/duration.js';
import {formatBytes, formatPercent} from '../../format/units.js';
import {cgroupLimitWords, ramAgainstLimit} from '../../core/ram-limit.js';
import {printable} from '../../format/printable.js';

// Pure data for MemoryPane: one entry per gauge, computed from the snapshot's fields.

/** A GPU's sensors as nvidia-smi gave them; null where it had none (N/A) or was not asked. */
export interface GpuSensors {
	readonly utilizationPercent: number | null;
	readonly temperatureC: number | null;
	readonly powerDrawW: number | null;
	readonly powerLimitW: number | null;
}

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
	/** A GPU's utilisation, temperature and power (null where nvidia-smi has none); null for RAM and swap. */
	readonly sensors: GpuSensors | null;
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

function row(
	metric: MetricId,
	label: string,
	percent: number | null,
	used: number | null,
	total: number | null,
	metrics: Readonly<Record<MetricId, MetricStatus>>,
	sensors: GpuSensors | null = null,
): GaugeRow {
	const status = metrics[metric];
	// The core judges levels; before its first judgement a gauge is plain ok, never guessed here.
	const threshold = status?.threshold ?? null;
	return {
		metric,
		label,
		percent,
		level: status?.level ?? 'ok',
		threshold,
		peak: status?.peak ?? null,
		usedBytes: used,
		totalBytes: total,
		headroomBytes: headroomBytes(total, used, threshold),
		stale: status?.stale === true,
		sensors,
	};
}

/** Against the job's cgroup limit when it has one (the Monitor judges it so), else the host's RAM. */
export function ramRow(memory: HostMemory, metrics: Readonly<Record<MetricId, MetricStatus>>): GaugeRow {
	const {percent, usedBytes, totalBytes} = ramAgainstLimit(memory);
	return row('ram', 'RAM', percent, usedBytes, totalBytes, metrics);
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

/** null on a machine without swap (the pane says "swap: none"). */
export function swapRow(memory: HostMemory, metrics: Readonly<Record<MetricId, MetricStatus>>): GaugeRow | null {
	const {swap} = memory;
	return swap ? row('swap', 'swap', swap.percent, swap.usedBytes, swap.totalBytes, metrics) : null;
}

export function gpuRow(reading: GpuReading, metrics: Readonly<Record<MetricId, MetricStatus>>): GaugeRow {
	return row(
		gpuMetricId(reading.index),
		`GPU${reading.index}`,
		reading.memoryPercent,
		reading.memoryUsedBytes,
		reading.memoryTotalBytes,
		metrics,
		{
			utilizationPercent: reading.utilizationPercent,
			temperatureC: reading.temperatureC ?? null,
			powerDrawW: reading.powerDrawW ?? null,
			powerLimitW: reading.powerLimitW ?? null,
		},
	);
}

/** Which sensor columns the GPU lines of a pane have: those that at least one GPU reports. */
export interface SensorColumns {
	readonly utilization: boolean;
	readonly temperature: boolean;
	readonly power: boolean;
}

export function sensorColumns(gpus: readonly GaugeRow[]): SensorColumns {
	const any = (pick: (sensors: GpuSensors) => number | null | undefined) =>
		gpus.some(g => g.sensors !== null && Number.isFinite(pick(g.sensors)));
	return {
		utilization: any(s => s.utilizationPercent),
		temperature: any(s => s.temperatureC),
		power: any(s => s.powerDrawW),
	};
}

/** What stands in for the GPU gauges when the reader has none to give; null when it has. */
export function gpuStatusText(state: GpuState, now: number): string | null {
	switch (state.status) {
		case 'ok':
			return state.gpus.length === 0 ? 'no GPU reported by nvidia-smi' : null;
		case 'starting':
			return 'starting nvidia-smi…';
		case 'absent':
			return `not monitored: ${state.reason}`;
		case 'error': {
			const retry =
				state.retryAt === null ? '' : `; retrying in ${formatAge(Math.max(0, (state.retryAt - now) / 1000))}`;
			return `nvidia-smi failed: ${printable(state.message)}${retry}`;
		}
	}
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
