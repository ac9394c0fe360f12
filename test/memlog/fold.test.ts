import {describe, expect, test} from 'vitest';
import {MAX_GPUS, MAX_HOSTS, OTHER_GPUS_ID, OTHER_HOSTS} from '../../src/memlog/fold.js';
import type {ReadLogRecord} from '../../src/memlog/record.js';
import {SeriesCollector} from '../../src/memlog/series.js';

// The collector's caps (memlog/fold.ts) on records built in memory; the CLI's report of them is
// test/commands/analyze-fold-cli.test.ts.

const T0 = Date.parse('2026-11-22T00:00:00Z');

const gpu = (index: number, percent: number, threshold?: number) => ({
	index,
	uuid: `GPU-${index}`,
	name: 'H100',
	memory_used_gb: 1,
	memory_total_gb: 80,
	memory_percent: percent,
	peak_memory_percent: percent,
	...(threshold === undefined ? {} : {threshold}),
});

const rec = (extra: Partial<ReadLogRecord>): ReadLogRecord => ({timestamp: 'unused', memory: null, ...extra});

describe('caps on distinct series', () => {
	test("several folded GPUs in one record: one point, the highest of them, judged by that GPU's own line", () => {
		const c = new SeriesCollector();
		// GPUs 0 … MAX_GPUS − 1 apart; MAX_GPUS (70 %, own line 60) and MAX_GPUS + 1 (80 %) folded.
		const kept = Array.from({length: MAX_GPUS}, (_, i) => gpu(i, 10));
		c.add(rec({gpus: [...kept, gpu(MAX_GPUS, 70, 60), gpu(MAX_GPUS + 1, 80)]}), T0);
		c.add(rec({gpus: [...kept, gpu(MAX_GPUS, 75, 60), gpu(MAX_GPUS + 1, 20)]}), T0 + 30_000);
		const series = c.finish();
		expect(series.metrics.map(m => m.id).at(-1)).toBe(OTHER_GPUS_ID);
		expect(series.metrics).toHaveLength(MAX_GPUS + 1);
		const other = series.metrics.find(m => m.id === OTHER_GPUS_ID)!;
		expect(other.count).toBe(2);
		expect([...other.value]).toEqual([80, 75]);
		// Record 0's highest (80 %) had no own line; record 1's (75 %) had 60.
		expect(other.threshold?.[0]).toBeNaN();
		expect(other.threshold?.[1]).toBe(60);
		expect(series.folded).toEqual([
			{kind: 'gpus', count: 2, at_least: false, points: 4, into: OTHER_GPUS_ID, kept: MAX_GPUS},
		]);
	});

	test('hosts past the cap are one series whose clocks going back are no restart; a kept host stays apart', () => {
		const c = new SeriesCollector('late');
		const ram = {total_gb: 100, used_gb: 50, percent: 50};
		for (let i = 0; i < MAX_HOSTS; i++) c.add(rec({host: `h${i}`, memory: ram}), T0 + i * 1000);
		// Two folded hosts whose clocks disagree, then the host `late` that the collector was told to keep.
		c.add(rec({host: 'x', memory: ram}), T0 + 10_000_000);
		c.add(rec({host: 'y', memory: ram}), T0 + 5_000_000);
		c.add(rec({host: 'late', memory: ram}), T0 + 6_000_000);
		const series = c.finish();
		expect(series.hosts).toHaveLength(MAX_HOSTS + 2);
		expect(series.hosts).toContain(OTHER_HOSTS);
		expect(series.hosts).toContain('late');
		expect(series.hosts).not.toContain('x');
		expect(series.timeJumps).toEqual([]);
		expect(series.folded).toEqual([
			{kind: 'hosts', count: 2, at_least: false, points: 2, into: OTHER_HOSTS, kept: MAX_HOSTS},
		]);
	});
});
