// A GPU's sensors in what the headless mode prints: the utilisation on the status line, and temperature and power as
// new keys of the log record's `gpus[]` (the --json output), every older key unchanged. N/A is null, never 0.

import {describe, expect, test} from 'vitest';
import {Monitor} from '../../src/core/monitor.js';
import type {GpuReading, MetricStatus} from '../../src/core/types.js';
import {formatStatusLine} from '../../src/headless/format.js';
import {LogWindow} from '../../src/memlog/window.js';
import {gpu, hostMemory, ScriptedSources} from '../helpers/snapshots.js';

const rules = {critical: 85, warnMargin: 10, hysteresis: 2};

/** One 1 s window over one sample of these GPUs: the record the headless mode prints with --json. */
async function recordOf(...gpus: GpuReading[]) {
	const sources = new ScriptedSources();
	sources.memory = hostMemory(40, 5);
	sources.setGpus(...gpus);
	const monitor = new Monitor({
		sources,
		thresholds: {ram: rules, swap: {...rules, critical: 50}, gpu: {...rules, critical: 90}},
		intervalMs: 1000,
		host: 'gpu-node-7',
		now: () => Date.parse('2026-11-22T10:00:00Z'),
	});
	const window = new LogWindow(1000, 1000);
	window.add(await monitor.tick());
	const record = window.flush();
	if (record === null) throw new Error('no record');
	return record;
}

/** The H100 under load in the recorded capture. */
const loaded: GpuReading = {
	...gpu(0, 24),
	utilizationPercent: 100,
	temperatureC: 59,
	powerDrawW: 631.95,
	powerLimitW: 700,
};

describe('GPU sensors in the log record (--json)', () => {
	test('temperature_c, power_draw_w and power_limit_w beside the keys records always had', async () => {
		const record = await recordOf(loaded);
		expect(record.gpus[0]).toEqual({
			index: 0,
			uuid: 'GPU-0',
			name: 'NVIDIA H100 80GB HBM3',
			memory_used_gb: expect.any(Number),
			memory_total_gb: 80,
			memory_percent: 24,
			peak_memory_percent: 24,
			utilization_percent: 100,
			temperature_c: 59,
			power_draw_w: 631.95,
			power_limit_w: 700,
		});
	});

	test('N/A (MIG utilisation, no power reading) and readings without sensors are null, never 0', async () => {
		const mig: GpuReading = {...loaded, utilizationPercent: null, powerDrawW: null, powerLimitW: null};
		const bare = gpu(1, 10);
		const record = await recordOf(mig, bare);
		expect(record.gpus[0]).toMatchObject({
			utilization_percent: null,
			temperature_c: 59,
			power_draw_w: null,
			power_limit_w: null,
		});
		expect(record.gpus[1]).toMatchObject({temperature_c: null, power_draw_w: null, power_limit_w: null});
		expect(JSON.parse(JSON.stringify(record)).gpus[1].temperature_c).toBeNull();
	});
});

describe('GPU utilisation on the status line', () => {
	const metrics: Record<string, MetricStatus> = {
		ram: {value: 40, level: 'ok', peak: 40, threshold: 85},
		gpu0: {value: 24, level: 'ok', peak: 24, threshold: 90},
		gpu1: {value: 10, level: 'ok', peak: 10, threshold: 90},
	};

	test('after each GPU that reports it; nothing where it is N/A', async () => {
		const record = await recordOf(loaded, {...gpu(1, 10), utilizationPercent: null, temperatureC: 40});
		const line = formatStatusLine(record, metrics);
		expect(line).toMatch(/ {2}gpu0 24\.0% ok util 100% {2}gpu1 10\.0% ok$/);
		expect(line).not.toMatch(/°C| W\b/);
	});
});
