import {UNACCOUNTED_TOLERANCE_BYTES} from '../core/gpu-unseen.js';
import type {GpuMemoryUnseen, GpuUnseen, UnseenGpuProcess, UnseenReason} from '../core/memory-types.js';
import {formatBytes} from './units.js';

// GPU memory nobody can see, in words (core/gpu-unseen.ts judges it): one line per unaccounted share and per listed
// process that is not a live one here, for the memory pane, the headless lines and their JSON.

const REASON_WORDS: Readonly<Record<UnseenReason, string>> = {
	'not-visible': 'not visible here',
	gone: 'gone',
	zombie: 'zombie, not reaped',
	'd-state': 'in D state',
};

/** Who holds the share nvidia-smi lists no process for: only in a PID namespace is it said to be one. */
function holders(pidNamespace: boolean | null): string {
	if (pidNamespace === true) return 'processes not visible here (PID namespace)';
	if (pidNamespace === null) return 'processes not visible here (PID namespace unknown)';
	// The host's namespace: a display's graphics contexts, or the driver's own, are not compute apps.
	return 'no listed process';
}

function processLine(p: UnseenGpuProcess, gpu: GpuUnseen): string {
	const who = `pid ${p.pid} (${REASON_WORDS[p.reason]})`;
	const still = p.reason === 'not-visible' ? '' : 'still ';
	return p.usedBytes === null
		? `${who} is ${still}listed on GPU${gpu.index}`
		: `${who} ${still}holds ${formatBytes(p.usedBytes)} on GPU${gpu.index}`;
}

/**
 * `1.2 GiB on GPU0 held by processes not visible here (PID namespace)`, `pid 5521 (gone) still holds 8.0 GiB on GPU3`:
 * the unaccounted share of each GPU above the tolerance, then its processes, largest first.
 */
export function gpuUnseenLines(unseen: GpuMemoryUnseen | null | undefined): string[] {
	if (!unseen) return [];
	const lines: string[] = [];
	for (const gpu of unseen.gpus) {
		if (gpu.unaccountedBytes !== null && gpu.unaccountedBytes > UNACCOUNTED_TOLERANCE_BYTES)
			lines.push(`${formatBytes(gpu.unaccountedBytes)} on GPU${gpu.index} held by ${holders(unseen.pidNamespace)}`);
		const largest = [...gpu.processes].sort((a, b) => (b.usedBytes ?? -1) - (a.usedBytes ?? -1));
		for (const p of largest) lines.push(processLine(p, gpu));
	}
	return lines;
}

/** As `--json` and the headless stream write it: snake_case figures, the reasons as codes. */
export function gpuUnseenJson(unseen: GpuMemoryUnseen): Record<string, unknown> {
	return {
		pid_namespace: unseen.pidNamespace,
		tolerance_bytes: UNACCOUNTED_TOLERANCE_BYTES,
		gpus: unseen.gpus.map(gpu => ({
			index: gpu.index,
			uuid: gpu.uuid,
			unaccounted_bytes: gpu.unaccountedBytes,
			processes: gpu.processes.map(p => ({pid: p.pid, used_bytes: p.usedBytes, reason: p.reason})),
		})),
	};
}
