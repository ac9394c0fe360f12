import {rawLevel} from '../core/thresholds.js';
import type {GpuState} from '../core/types.js';

// Free memory per GPU before launch, from the same nvidia-smi reader the monitor uses. What the model will need is
// not known here (the seed measures it with a synthetic step once the model is built), so this reports, and marks
// a device already at or above its warn line: another job's memory that this one would share the GPU with.

export interface GpuFree {
	readonly index: number;
	readonly uuid: string | null;
	readonly name: string | null;
	readonly totalBytes: number | null;
	readonly usedBytes: number | null;
	readonly freeBytes: number | null;
	readonly usedPercent: number | null;
	/** Used at or above the warn line (its threshold − the warn margin) before the job starts. */
	readonly busy: boolean;
}

export type GpuReport =
	| {readonly status: 'ok'; readonly devices: readonly GpuFree[]}
	| {readonly status: 'absent' | 'error' | 'no_answer'; readonly reason: string};

export interface GpuLines {
	readonly gpuThreshold: number;
	/** A GPU's own critical percent by uuid (--gpu-thresholds). */
	readonly gpuThresholds: ReadonlyMap<string, number>;
	readonly warnMargin: number;
}

/** `state` null: nvidia-smi gave no answer in time. */
export function gpuReport(state: GpuState | null, lines: GpuLines): GpuReport {
	if (state === null || state.status === 'starting')
		return {status: 'no_answer', reason: 'nvidia-smi gave no sample in time'};
	if (state.status === 'absent') return {status: 'absent', reason: state.reason};
	if (state.status === 'error') return {status: 'error', reason: state.message};
	const devices = state.gpus.map(gpu => {
		const total = gpu.memoryTotalBytes;
		const used = gpu.memoryUsedBytes;
		const critical = (gpu.uuid === null ? undefined : lines.gpuThresholds.get(gpu.uuid)) ?? lines.gpuThreshold;
		const rule = {critical, warnMargin: lines.warnMargin, hysteresis: 0};
		return {
			index: gpu.index,
			uuid: gpu.uuid,
			name: gpu.name,
			totalBytes: total,
			usedBytes: used,
			freeBytes: total === null || used === null ? null : Math.max(0, total - used),
			usedPercent: gpu.memoryPercent,
			busy: gpu.memoryPercent !== null && rawLevel(gpu.memoryPercent, rule) !== 'ok',
		};
	});
	return {status: 'ok', devices};
}
