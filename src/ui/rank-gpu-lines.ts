import type {GpuProcessTable, GpuState} from '../core/types.js';
import {formatBytes} from '../format/units.js';
import {gpuMemoryOf} from '../ranks/discover.js';

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
	const lines = ['GPU memory'];
	for (const reading of gpu.gpus) {
		// The rank's total (gpuMemoryOf, as the ranks pane's GPU column), device by device.
		const rows = table.processes.filter(p => p.gpuUuid !== null && p.gpuUuid === reading.uuid && pids.includes(p.pid));
		if (rows.length === 0) continue;
		const bytes = gpuMemoryOf(pids, {...table, processes: rows});
		const of = reading.memoryUsedBytes === null ? '' : ` of ${formatBytes(reading.memoryUsedBytes)} used on it`;
		const who = rows.length === 1 ? '1 process' : `${rows.length} processes`;
		lines.push(
			`  GPU${reading.index}  ${bytes === null ? 'unknown (not attributed by the driver)' : formatBytes(bytes)}${of} (${who})`,
		);
	}
	if (lines.length === 1) return ['GPU memory', '  none: no process of this rank is on a GPU'];
	return lines;
}
