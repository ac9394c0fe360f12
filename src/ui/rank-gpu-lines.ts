import type {GpuProcessTable, GpuState} from '../core/types.js';
import {formatBytes} from '../format/units.js';

// The rank detail's GPU memory per device: what nvidia-smi's per-process table says the rank and its workers
// hold on each GPU, with that GPU's total use, so that a rank holding a second device (a stray tensor on
// cuda:0 from every rank) shows. Plain lines, pure.

/** `GPU memory`, then a line per device the rank's processes use; one line saying why when there is nothing to list. */
export function rankGpuLines(pids: readonly number[], table: GpuProcessTable, gpu: GpuState): string[] {
	if (gpu.status !== 'ok') return ['GPU memory', '  no GPU reading'];
	if (table.sampledAt === null)
		return [
			'GPU memory',
			table.error ? `  per-process GPU memory unavailable: ${table.error}` : '  per-process GPU memory not read yet',
		];
	const mine = new Set(pids);
	const byDevice = new Map<string, {bytes: number | null; processes: number}>();
	for (const process of table.processes) {
		if (!mine.has(process.pid) || process.gpuUuid === null) continue;
		const held = byDevice.get(process.gpuUuid) ?? {bytes: 0, processes: 0};
		byDevice.set(process.gpuUuid, {
			bytes: held.bytes === null || process.usedBytes === null ? null : held.bytes + process.usedBytes,
			processes: held.processes + 1,
		});
	}
	if (byDevice.size === 0) return ['GPU memory', '  none: no process of this rank is on a GPU'];
	const lines = ['GPU memory'];
	for (const reading of gpu.gpus) {
		const held = reading.uuid === null ? undefined : byDevice.get(reading.uuid);
		if (!held) continue;
		const of = reading.memoryUsedBytes === null ? '' : ` of ${formatBytes(reading.memoryUsedBytes)} used on it`;
		const who = held.processes === 1 ? '1 process' : `${held.processes} processes`;
		lines.push(
			`  GPU${reading.index}  ${held.bytes === null ? 'unknown (not attributed by the driver)' : formatBytes(held.bytes)}${of} (${who})`,
		);
	}
	return lines;
}
