import {THROTTLE_REASONS} from '../core/gpu-health-types.js';
import type {GpuReading, Snapshot} from '../core/types.js';
import type {Put} from './samples.js';

// Each GPU's figures as nvidia-smi gave them at the node's latest sample, with its health (core/gpu-health-types.ts).
// A field the driver marked N/A or was not asked is null there and absent here. GPUs are only exported while the
// reader has a current sample: a failed reader's last figures are not today's.

const flag = (value: 'enabled' | 'disabled' | null): boolean | null => (value === null ? null : value === 'enabled');

export function putGpus(put: Put, snapshot: Snapshot): void {
	if (snapshot.gpu.status !== 'ok') return;
	for (const reading of snapshot.gpu.gpus) putGpu(put, reading);
}

function putGpu(put: Put, reading: GpuReading): void {
	const labels = {gpu: String(reading.index), uuid: reading.uuid ?? ''};
	put('traintop_gpu_memory_used_bytes', labels, reading.memoryUsedBytes);
	put('traintop_gpu_memory_total_bytes', labels, reading.memoryTotalBytes);
	put('traintop_gpu_memory_used_percent', labels, reading.memoryPercent);
	put('traintop_gpu_utilization_percent', labels, reading.utilizationPercent);
	put('traintop_gpu_power_watts', labels, reading.powerDrawW);
	put('traintop_gpu_power_limit_watts', labels, reading.powerLimitW);
	put('traintop_gpu_temperature_celsius', labels, reading.temperatureC);
	const health = reading.health;
	if (!health) return;
	put('traintop_gpu_memory_temperature_celsius', labels, health.memoryTemperatureC);
	const throttle = health.throttle;
	if (throttle)
		for (const reason of THROTTLE_REASONS) put('traintop_gpu_throttle', {...labels, reason}, throttle.includes(reason));
	put('traintop_gpu_ecc_enabled', labels, flag(health.eccMode));
	put('traintop_gpu_ecc_errors', {...labels, kind: 'corrected'}, health.eccCorrected);
	put('traintop_gpu_ecc_errors', {...labels, kind: 'uncorrected'}, health.eccUncorrected);
	put('traintop_gpu_retired_pages_pending', labels, health.retiredPagesPending);
	put('traintop_gpu_remapped_rows_pending', labels, health.remappedRowsPending);
	put('traintop_gpu_remapped_rows_failure', labels, health.remappedRowsFailure);
	put('traintop_gpu_remapped_rows_uncorrectable', labels, health.remappedRowsUncorrectable);
}
