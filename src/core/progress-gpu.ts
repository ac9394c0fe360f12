import type {GpuProcessTable, GpuReading, GpuState} from './types.js';
import type {ProgressEvidence} from './progress-types.js';

// The GPU sign of a hang: a collective that waits for a peer keeps its kernel polling, so the GPU reads as fully
// used while drawing little more than idle power. A real H200 (recorded-h200: nvidia-smi, driver 580) idles at
// 77–80 W of 700 W (11 %) and ran an NCCL loop at 118 W (17 %); training kernels draw far above a third of the limit.
// A GPU at ≥ 95 % utilisation under 30 % of its power limit is "spinning"; for the stall window, it is evidence of a
// hang. Unknown utilisation or power (N/A, no limit) is no evidence either way.

export const SPIN_UTILISATION = 95;
export const SPIN_POWER_SHARE = 0.3;

function spinning(gpu: GpuReading): boolean | null {
	const {utilizationPercent: util, powerDrawW: watts, powerLimitW: limit} = gpu;
	if (util === null || watts === null || watts === undefined || !limit) return null;
	return util >= SPIN_UTILISATION && watts <= limit * SPIN_POWER_SHARE;
}

/** Since when each GPU has been spinning, by uuid (index where it has none). */
export class GpuSpins {
	#since = new Map<string, number>();
	#gpus: readonly GpuReading[] = [];

	update(gpu: GpuState, now: number): void {
		if (gpu.status !== 'ok') return;
		this.#gpus = gpu.gpus;
		const next = new Map<string, number>();
		for (const reading of gpu.gpus) {
			const key = reading.uuid ?? String(reading.index);
			if (spinning(reading)) next.set(key, this.#since.get(key) ?? now);
		}
		this.#since = next;
	}

	/** The evidence for a job whose processes are `pids`: each of its GPUs spinning (with for how long) or working. */
	evidence(pids: ReadonlySet<number>, table: GpuProcessTable, now: number): ProgressEvidence[] {
		const uuids = new Set(table.processes.filter(p => pids.has(p.pid) && p.gpuUuid).map(p => p.gpuUuid));
		return this.#gpus.flatMap((gpu): ProgressEvidence[] => {
			if (!gpu.uuid || !uuids.has(gpu.uuid)) return [];
			const since = this.#since.get(gpu.uuid);
			const figures = {gpu: gpu.index, percent: gpu.utilizationPercent ?? 0, watts: gpu.powerDrawW ?? 0};
			if (since !== undefined)
				return [{code: 'gpu-spin', ...figures, limitW: gpu.powerLimitW ?? 0, seconds: (now - since) / 1000} as const];
			return spinning(gpu) === false && (gpu.utilizationPercent ?? 0) >= 50
				? [{code: 'gpu-working', ...figures} as const]
				: [];
		});
	}
}
