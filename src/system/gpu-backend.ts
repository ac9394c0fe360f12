import type {GpuProcessTable, GpuSource, GpuState} from '../core/types.js';
import {NvidiaSmiReader} from './nvidia-smi.js';

// The one place that picks how GPUs are read. Today that is nvidia-smi (one long-lived query loop plus compute-apps
// one-shots, system/nvidia-smi.ts); an NVML binding would be a second backend here, chosen by `backend`, and every
// caller (the session, the one-shot commands) gets it without knowing which. Its states carry its name as `source`,
// so the views name it from there.

/** What the session and the one-shot commands use of a GPU backend. */
export interface GpuBackend {
	readonly source: GpuSource;
	start(): void;
	getState(): GpuState;
	getProcesses(): GpuProcessTable;
	/** Per-process queries on or off (they cost a driver call each): wanted only while there are ranks to attribute. */
	setProcessQueries(wanted: boolean): void;
	/** `listener` runs on every state change and every new sample. Returns the unsubscribe function. */
	subscribe(listener: () => void): () => void;
	/** Ends whatever the backend runs and resolves once it has; idempotent. */
	stop(): Promise<void>;
	/** Synchronous last resort for process.on('exit'). */
	killNow(): void;
}

export interface GpuBackendOptions {
	/** Which backend; nvidia-smi, the one there is today. */
	readonly backend?: GpuSource;
	/** The nvidia-smi command (`--nvidia-smi`); default `nvidia-smi` on PATH. */
	readonly command?: string;
	/** How often the devices are sampled. */
	readonly intervalMs: number;
	/** How often per-process memory is asked for; 0 turns it off. */
	readonly processIntervalMs: number;
	readonly env?: NodeJS.ProcessEnv;
}

export function openGpuBackend(options: GpuBackendOptions): GpuBackend {
	switch (options.backend ?? 'nvidia-smi') {
		case 'nvidia-smi':
			return new NvidiaSmiReader({
				command: options.command,
				env: options.env,
				intervalMs: options.intervalMs,
				processIntervalMs: options.processIntervalMs,
				// Throttling, ECC and remapped rows in the same loop (one NVML session), as far as the driver knows them.
				health: true,
			});
	}
}
