import type {GpuState} from '../core/types.js';
import {formatAge} from './duration.js';
import {printable} from './printable.js';

// The GPU reader's state in words, for every view (the memory pane, the headless lines): what stands in for the
// devices' figures while there are none, and the driver's warning. The reader is named from the state's `source`,
// never written here, so another backend (NVML) says its own name. Each view joins `what` and `why` with its own
// punctuation (`not monitored: …` in a pane's column, `GPU: not monitored — …` on a headless line).

export interface GpuProblem {
	/** `not monitored`, `nvidia-smi failed`, `starting nvidia-smi…`, `no GPU reported by nvidia-smi`. */
	readonly what: string;
	/** The reader's own words (escapes shown, never obeyed) and when it retries; null when there is nothing more. */
	readonly why: string | null;
}

export interface GpuStateWords {
	/** Why there are no device figures; null while there are (a sample with at least one device). */
	readonly problem: GpuProblem | null;
	/** `nvidia-smi warns: infoROM is corrupted…` beside good figures; null without one. */
	readonly warning: string | null;
}

/**
 * The backend that read the state, for the views' words. A state without a `source` comes from before backends were
 * named (an older agent): nvidia-smi was the only one.
 */
export function gpuSourceName(state: GpuState): string {
	return state.source ?? 'nvidia-smi';
}

export function gpuStateWords(state: GpuState, now: number): GpuStateWords {
	const source = gpuSourceName(state);
	switch (state.status) {
		case 'starting':
			return {problem: {what: `starting ${source}…`, why: null}, warning: null};
		case 'ok': {
			const warning = state.warning ? `${source} warns: ${printable(state.warning)}` : null;
			const problem = state.gpus.length === 0 ? {what: `no GPU reported by ${source}`, why: null} : null;
			return {problem, warning};
		}
		case 'absent':
			return {problem: {what: 'not monitored', why: printable(state.reason)}, warning: null};
		case 'error': {
			const retry =
				state.retryAt === null ? '' : `; retrying in ${formatAge(Math.max(0, (state.retryAt - now) / 1000))}`;
			return {problem: {what: `${source} failed`, why: `${printable(state.message)}${retry}`}, warning: null};
		}
	}
}
