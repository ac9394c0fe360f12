import {describe, expect, test} from 'vitest';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {thresholdsFrom} from '../../src/config/thresholds.js';
import {Monitor} from '../../src/core/monitor.js';
import {LogWindow} from '../../src/memlog/window.js';
import {aggregateGpus} from '../../src/metrics/gpu.js';
import {METRICS} from '../../src/metrics/registry.js';
import {gpu, hostMemory, ScriptedSources} from '../helpers/snapshots.js';

// The metric registry is the one list the views and the log read: what each entry declares must be what it does.

const rules = {critical: 85, warnMargin: 10, hysteresis: 2};

async function snapshot(sources: ScriptedSources) {
	const monitor = new Monitor({
		sources,
		thresholds: {ram: rules, swap: rules, gpu: rules},
		intervalMs: 1000,
		host: 'n',
		now: () => 0,
	});
	return monitor.tick();
}

describe('the metric registry', () => {
	test('each metric is declared once; the settings of the judged ones are what the Monitor judges by', () => {
		const ids = METRICS.map(m => m.id);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids).toEqual(['ram', 'swap', 'cpu', 'gpu']);
		const settings = {...DEFAULT_SETTINGS, ramThreshold: 71, swapThreshold: 42, gpuThreshold: 93};
		const thresholds = thresholdsFrom(settings);
		expect(Object.keys(thresholds)).toEqual(['ram', 'swap', 'gpu']);
		for (const metric of METRICS.filter(m => m.threshold !== null)) {
			expect(thresholds[metric.id as keyof typeof thresholds]).toMatchObject({
				critical: settings[metric.threshold!.setting],
			});
		}
	});

	test("each entry writes exactly the log keys it declares, and no entry another's", async () => {
		const sources = new ScriptedSources();
		sources.memory = {...hostMemory(40, 5)};
		sources.setGpus(gpu(0, 30), gpu(1, 60));
		const s = {...(await snapshot(sources)), cpu: {percent: 12.345, cores: 4, load: null}};
		const context = {gpuThreshold: 85};
		const written = new Set<string>();
		for (const metric of METRICS) {
			const state = metric.log.start();
			metric.log.fold(state, s);
			const keys = Object.keys(metric.log.write(state, s, context));
			for (const key of keys) {
				expect(metric.words.log).toContain(key);
				expect(written.has(key)).toBe(false);
				written.add(key);
			}
		}
		// gpu_message only when the reader says something; the rest always.
		expect([...written].sort()).toEqual(['cpu', 'gpu', 'gpu_status', 'gpus', 'memory', 'swap']);
	});

	test('a metric the snapshot does not carry writes no key: the record keeps the bytes it had', async () => {
		const window = new LogWindow(1000, 1000);
		window.add(await snapshot(new ScriptedSources()));
		const record = window.flush()!;
		expect(record).not.toHaveProperty('cpu');
		expect(JSON.stringify(Object.keys(record))).toBe(
			'["timestamp","host","interval_s","samples","memory","swap","gpu","gpus","gpu_status","gpu_message","alerts","slurm"]',
		);
	});

	test('gauges: one per device for a per-device metric, with its Monitor id; why a host one has none', async () => {
		const sources = new ScriptedSources();
		sources.setGpus(gpu(0, 30), gpu(3, 60));
		const s = await snapshot(sources);
		const byId = Object.fromEntries(METRICS.map(m => [m.id, m]));
		expect(byId.gpu!.gauges(s)).toMatchObject([
			{metric: 'gpu0', index: 0, percent: 30},
			{metric: 'gpu3', index: 3, percent: 60},
		]);
		expect(byId.swap!.gauges({...s, memory: {...s.memory!, swap: null}})).toBe('none');
		expect(byId.ram!.gauges({...s, memory: null, memoryError: 'EACCES'})).toBe('failed');
		expect(byId.ram!.gauges({...s, memory: null, memoryError: null})).toBe('unread');
		expect(byId.gpu!.gauges({...s, gpu: {status: 'starting'}})).toBe('unread');
	});
});

test('aggregateGpus ignores devices whose memory is unknown', () => {
	expect(aggregateGpus([gpu(0, null)])).toBeNull();
	expect(aggregateGpus([gpu(0, null), gpu(1, 25)])?.percent).toBe(25);
	expect(aggregateGpus([])).toBeNull();
});
