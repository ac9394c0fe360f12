import {gpuMetricId} from '../core/metric-id.js';
import type {GpuReading, Snapshot} from '../core/types.js';
import {roundGib, roundPercent} from '../memlog/log-rounding.js';
import type {GpuRecord, LogRecord} from '../memlog/record.js';
import {defineMetric, maxOf, type LogContext} from './metric.js';

// GPU memory, one gauge per device (`gpu0`, `gpu1`…), each judged by the global line or its own (by uuid). The log
// keeps every device in `gpus[]`, their sum in `gpu` (the seed tool's keys) and the reader's state in `gpu_status`.

const GIB = 1024 ** 3;
const gb = (bytes: number) => roundGib(bytes / GIB);

interface GpuAggregate {
	readonly usedBytes: number;
	readonly totalBytes: number;
	readonly percent: number;
}

/** Sum over the GPUs whose memory is known; null when none is (no GPU, MIG-only, GB10). */
export function aggregateGpus(gpus: readonly GpuReading[]): GpuAggregate | null {
	let used = 0;
	let total = 0;
	for (const g of gpus) {
		if (g.memoryUsedBytes === null || g.memoryTotalBytes === null || g.memoryTotalBytes <= 0) continue;
		used += g.memoryUsedBytes;
		total += g.memoryTotalBytes;
	}
	return total > 0 ? {usedBytes: used, totalBytes: total, percent: (used / total) * 100} : null;
}

interface GpuWindow {
	peakAggregate: number | null;
	readonly peaks: Map<number, number>;
	readonly last: Map<number, GpuReading>;
	/** Each GPU's critical line as the Monitor judged its last reading, by index. */
	readonly lines: Map<number, number>;
}

function fold(state: GpuWindow, s: Snapshot): void {
	if (s.gpu.status !== 'ok') return;
	for (const g of s.gpu.gpus) {
		state.last.set(g.index, g);
		const line = s.metrics[gpuMetricId(g.index)]?.threshold;
		if (line === undefined) state.lines.delete(g.index);
		else state.lines.set(g.index, line);
		const peak = maxOf(state.peaks.get(g.index) ?? null, g.memoryPercent);
		if (peak !== null) state.peaks.set(g.index, peak);
	}
	state.peakAggregate = maxOf(state.peakAggregate, aggregateGpus(s.gpu.gpus)?.percent);
}

/**
 * `threshold` for a GPU judged by a line other than the global one (`--gpu-thresholds`, a cluster.yaml reserve
 * factor), so `--analyze` judges it as the live alerts did; nothing for the others, and the log keeps its size.
 */
function ownLine(state: GpuWindow, index: number, context: LogContext): {threshold?: number} {
	const line = state.lines.get(index);
	const global = context.gpuThreshold;
	return global === null || line === undefined || line === global ? {} : {threshold: line};
}

function deviceRecord(state: GpuWindow, g: GpuReading, context: LogContext): GpuRecord {
	const peak = state.peaks.get(g.index);
	return {
		index: g.index,
		uuid: g.uuid,
		name: g.name,
		memory_used_gb: g.memoryUsedBytes === null ? null : gb(g.memoryUsedBytes),
		memory_total_gb: g.memoryTotalBytes === null ? null : gb(g.memoryTotalBytes),
		memory_percent: g.memoryPercent === null ? null : roundPercent(g.memoryPercent),
		peak_memory_percent: peak === undefined ? null : roundPercent(peak),
		utilization_percent: g.utilizationPercent,
		temperature_c: g.temperatureC ?? null,
		power_draw_w: g.powerDrawW ?? null,
		power_limit_w: g.powerLimitW ?? null,
		...ownLine(state, g.index, context),
	};
}

/** The reader's reason for absent/error, or a driver warning. */
function stateMessage(s: Snapshot): string | null {
	switch (s.gpu.status) {
		case 'absent':
			return s.gpu.reason;
		case 'error':
			return s.gpu.message;
		case 'ok':
			return s.gpu.warning;
		case 'starting':
			return null;
	}
}

function write(state: GpuWindow, last: Snapshot, context: LogContext): Partial<LogRecord> {
	const devices = [...state.last.values()].sort((a, b) => a.index - b.index);
	const aggregate = aggregateGpus(devices);
	const message = stateMessage(last);
	return {
		gpu: aggregate
			? {
					memory_allocated_gb: gb(aggregate.usedBytes),
					memory_total_gb: gb(aggregate.totalBytes),
					memory_percent: roundPercent(aggregate.percent),
					peak_memory_percent: roundPercent(state.peakAggregate ?? aggregate.percent),
				}
			: null,
		gpus: devices.map(g => deviceRecord(state, g, context)),
		gpu_status: last.gpu.status,
		...(message ? {gpu_message: message} : {}),
	};
}

export const gpu = defineMetric<GpuWindow>({
	id: 'gpu',
	perDevice: true,
	unit: 'percent',
	threshold: {setting: 'gpuThreshold', perDevice: 'gpuThresholds'},
	words: {pane: 'GPU', status: 'gpu', log: ['gpu', 'gpus', 'gpu_status', 'gpu_message']},
	// Not read while the reader has no sample: the views say its state (format/gpu-state.ts) in their place.
	gauges: ({gpu: state}) =>
		state.status !== 'ok'
			? 'unread'
			: state.gpus.map(g => ({
					metric: gpuMetricId(g.index),
					index: g.index,
					percent: g.memoryPercent,
					usedBytes: g.memoryUsedBytes,
					totalBytes: g.memoryTotalBytes,
					sensors: {
						utilizationPercent: g.utilizationPercent,
						temperatureC: g.temperatureC ?? null,
						powerDrawW: g.powerDrawW ?? null,
						powerLimitW: g.powerLimitW ?? null,
					},
				})),
	status: record =>
		record.gpus.length === 0
			? [{field: 'gpu', code: record.gpu_status}]
			: record.gpus.map(g => ({
					field: gpuMetricId(g.index),
					metric: gpuMetricId(g.index),
					value: g.memory_percent,
					peak: g.peak_memory_percent ?? null,
					utilizationPercent: g.utilization_percent,
				})),
	log: {
		start: () => ({peakAggregate: null, peaks: new Map(), last: new Map(), lines: new Map()}),
		fold,
		write,
	},
});
