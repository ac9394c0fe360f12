import type {GpuProcessTable, GpuReading, GpuState, HostMemory} from '../../src/core/types.js';
import type {MonitorSources} from '../../src/core/monitor.js';

const GIB = 1024 ** 3;

/** Host memory at a given RAM percent of 64 GiB (and swap percent of 8 GiB, or no swap). */
export function hostMemory(ramPercent: number, swapPercent: number | null = null): HostMemory {
	const total = 64 * GIB;
	const used = (total * ramPercent) / 100;
	return {
		ram: {totalBytes: total, usedBytes: used, availableBytes: total - used, percent: ramPercent},
		swap:
			swapPercent === null
				? null
				: {totalBytes: 8 * GIB, usedBytes: (8 * GIB * swapPercent) / 100, percent: swapPercent},
	};
}

/** An 80 GiB GPU at a given memory percent. */
export function gpu(index: number, percent: number | null): GpuReading {
	const total = 80 * GIB;
	return {
		index,
		uuid: `GPU-${index}`,
		name: 'NVIDIA H100 80GB HBM3',
		memoryTotalBytes: total,
		memoryUsedBytes: percent === null ? null : (total * percent) / 100,
		memoryPercent: percent,
		utilizationPercent: 50,
	};
}

const NO_PROCESSES: GpuProcessTable = {processes: [], sampledAt: null, error: null};

/**
 * Sources whose values the test sets between ticks: the Monitor reads them exactly as it reads
 * the real readers, without any process or file behind them.
 */
export class ScriptedSources implements MonitorSources {
	memory: HostMemory | Error = hostMemory(10);
	gpuState: GpuState = {status: 'absent', reason: 'nvidia-smi not found on PATH'};
	processes: GpuProcessTable = NO_PROCESSES;
	readonly gpu = {
		getState: () => this.gpuState,
		getProcesses: () => this.processes,
	};

	async readMemory(): Promise<HostMemory> {
		if (this.memory instanceof Error) throw this.memory;
		return this.memory;
	}

	setGpus(...gpus: GpuReading[]): void {
		this.gpuState = {status: 'ok', gpus, sampledAt: 0, warning: null};
	}
}
