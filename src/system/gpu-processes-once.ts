import type {GpuProcessTable} from '../core/types.js';
import {openGpuBackend} from './gpu-backend.js';

/**
 * Per-process GPU memory for one-shot commands (`traintop ranks`): starts the reader, waits for its
 * first compute-apps table — or for the verdict that there is no GPU — and stops it. Null when
 * there is no answer within `timeoutMs` (a multi-GPU host can take seconds to initialise NVML).
 */
export async function readGpuProcessesOnce(command: string, timeoutMs = 5000): Promise<GpuProcessTable | null> {
	const reader = openGpuBackend({command, intervalMs: 500, processIntervalMs: 100});
	try {
		return await new Promise<GpuProcessTable | null>(resolve => {
			const timer = setTimeout(() => resolve(null), timeoutMs);
			const check = () => {
				const state = reader.getState();
				const table = reader.getProcesses();
				if (table.sampledAt !== null || table.error !== null || state.status === 'absent' || state.status === 'error') {
					clearTimeout(timer);
					resolve(table.sampledAt !== null ? table : null);
				}
			};
			reader.subscribe(check);
			reader.start();
			check();
		});
	} finally {
		await reader.stop();
	}
}
