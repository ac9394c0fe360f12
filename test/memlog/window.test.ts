import {describe, expect, test} from 'vitest';
import {Monitor} from '../../src/core/monitor.js';
import {logRecordReadSchema} from '../../src/memlog/record.js';
import {LogWindow} from '../../src/memlog/window.js';
import {gpu, hostMemory, ScriptedSources} from '../helpers/snapshots.js';

const rules = {critical: 85, warnMargin: 10, hysteresis: 2};

/** A Monitor on scripted sources and a hand clock, feeding a 10 s window at 1 s sampling. */
function setup(start = Date.parse('2026-11-22T10:00:00Z')) {
	const sources = new ScriptedSources();
	let now = start;
	const monitor = new Monitor({
		sources,
		thresholds: {ram: rules, swap: {...rules, critical: 50}, gpu: {...rules, critical: 90}},
		intervalMs: 1000,
		host: 'gpu-node-7',
		now: () => now,
	});
	const window = new LogWindow(10_000, 1000);
	const sample = async (ramPercent: number, atMs?: number) => {
		if (atMs !== undefined) now = start + atMs;
		sources.memory = hostMemory(ramPercent, 5);
		const record = window.add(await monitor.tick());
		now += 1000;
		return record;
	};
	return {sources, window, sample};
}

describe('LogWindow', () => {
	test('one record per log interval, with the last value and the window peak', async () => {
		const {window, sample} = setup();
		const records = [];
		// Samples at 0..20 s; RAM spikes to 80 % at 4 s and falls back.
		for (let t = 0; t <= 20; t++) {
			const r = await sample(t === 4 ? 80 : 40 + t / 10);
			if (r) records.push({at: t, r});
		}
		expect(records.map(x => x.at)).toEqual([10, 20]);
		const first = records[0]!.r;
		expect(first.samples).toBe(11);
		expect(first.memory?.percent).toBe(41);
		expect(first.memory?.peak_percent).toBe(80);
		expect(first.memory?.peak_used_gb).toBeCloseTo(51.2, 3);
		expect(first.timestamp).toBe('2026-11-22T10:00:10.000Z');
		expect(first.interval_s).toBe(10);
		expect(first.host).toBe('gpu-node-7');
		// The spike belongs to the first window only.
		const second = records[1]!.r;
		expect(second.samples).toBe(10);
		expect(second.memory?.peak_percent).toBe(42);
		expect(window.flush()).toBeNull();
	});

	test('timer jitter does not move samples across windows or drift the grid', async () => {
		const {sample} = setup();
		const closing: number[] = [];
		const times = [0, 1003, 1998, 3001, 4002, 4999, 6004, 7001, 7998, 9002, 9996, 11001, 19_600, 20_300, 29_700];
		for (const t of times) {
			if (await sample(30, t)) closing.push(t);
		}
		// 9996 is within half a period of 10 000; 19 600 is within 500 ms of 20 000; 29 700 of 30 000.
		expect(closing).toEqual([9996, 19_600, 29_700]);
	});

	test('a long pause (suspended laptop, stopped process) closes the window once and re-aligns', async () => {
		const {sample} = setup();
		expect(await sample(30, 0)).toBeNull();
		expect(await sample(30, 95_000)).not.toBeNull();
		expect(await sample(30, 96_000)).toBeNull();
		expect(await sample(30, 99_000)).toBeNull();
		expect(await sample(30, 99_800)).not.toBeNull();
		expect(await sample(30, 100_500)).toBeNull();
	});

	test('flush() writes the partial window, e.g. on SIGINT', async () => {
		const {window, sample} = setup();
		await sample(50);
		await sample(60);
		const r = window.flush();
		expect(r?.samples).toBe(2);
		expect(r?.memory?.peak_percent).toBe(60);
		expect(window.flush()).toBeNull();
	});

	test('per-GPU peaks and the aggregate; level changes inside the window are kept as alerts', async () => {
		const {sources, window, sample} = setup();
		sources.setGpus(gpu(0, 50), gpu(1, 10));
		await sample(40);
		sources.setGpus(gpu(0, 95), gpu(1, 20));
		await sample(40);
		sources.setGpus(gpu(0, 60), gpu(1, 30));
		await sample(86);
		const r = window.flush()!;
		expect(r.gpus.map(g => [g.index, g.memory_percent, g.peak_memory_percent])).toEqual([
			[0, 60, 95],
			[1, 30, 30],
		]);
		expect(r.gpus[0]).toMatchObject({
			uuid: 'GPU-0',
			name: 'NVIDIA H100 80GB HBM3',
			memory_total_gb: 80,
			memory_used_gb: 48,
		});
		expect(r.gpu).toEqual({
			memory_allocated_gb: 72,
			memory_total_gb: 160,
			memory_percent: 45,
			peak_memory_percent: 57.5,
		});
		expect(r.gpu_status).toBe('ok');
		expect(r.alerts.map(a => `${a.metric} ${a.from}→${a.to}`)).toEqual([
			'gpu0 ok→critical',
			'ram ok→critical',
			'gpu0 critical→ok',
		]);
		expect(r.alerts[0]).toMatchObject({value: 95, threshold: 90});
		expect(typeof r.alerts[0]?.time).toBe('string');
	});

	test('no GPU: gpu is null, gpus empty, and the reason is kept', async () => {
		const {window, sample} = setup();
		await sample(40);
		const r = window.flush()!;
		expect(r.gpu).toBeNull();
		expect(r.gpus).toEqual([]);
		expect(r.gpu_status).toBe('absent');
		expect(r.gpu_message).toBe('nvidia-smi not found on PATH');
		expect(r.swap).toMatchObject({total_gb: 8, percent: 5, peak_percent: 5});
	});

	test("records keep the seed tool's fields and pass the reader schema", async () => {
		const {sources, window, sample} = setup();
		sources.setGpus(gpu(0, 76.875));
		await sample(89.1);
		const r = window.flush()!;
		const json = JSON.parse(JSON.stringify(r));
		expect(json.memory).toMatchObject({total_gb: 64, percent: 89.1});
		expect(json.memory.used_gb).toBeCloseTo(57.024, 3);
		expect(json.gpu).toMatchObject({memory_allocated_gb: 61.5, memory_total_gb: 80, memory_percent: 76.88});
		expect(logRecordReadSchema.safeParse(json).success).toBe(true);
	});
});
