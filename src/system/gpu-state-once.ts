import type {GpuState} from '../core/types.js';
import {openGpuBackend} from './gpu-backend.js';

/**
 * The devices once, for one-shot commands (`traintop preflight`): starts the reader without per-process queries,
 * waits for its first sample — or for the verdict that there is no nvidia-smi or that it fails — and stops it.
 * Null when nothing came within `timeoutMs` (a multi-GPU host can take seconds to initialise NVML).
 */
export async function readGpuStateOnce(
	command: string,
	options: {readonly env?: NodeJS.ProcessEnv; readonly timeoutMs?: number} = {},
): Promise<GpuState | null> {
	const reader = openGpuBackend({command, env: options.env, intervalMs: 500, processIntervalMs: 0});
	try {
		return await new Promise<GpuState | null>(resolve => {
			const timer = setTimeout(() => resolve(null), options.timeoutMs ?? 10_000);
			const check = () => {
				const state = reader.getState();
				if (state.status !== 'starting') {
					clearTimeout(timer);
					resolve(state);
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
