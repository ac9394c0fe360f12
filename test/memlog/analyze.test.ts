import {describe, expect, test} from 'vitest';
import {analyze, type AnalysisThresholds} from '../../src/memlog/analyze.js';
import {analyzeLog} from '../../src/memlog/analyze-log.js';
import type {ReadLogRecord} from '../../src/memlog/record.js';
import {SeriesCollector} from '../../src/memlog/series.js';
import type {Series} from '../../src/memlog/series-types.js';

const T0 = Date.parse('2026-11-22T00:00:00Z');
const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});
const thresholds: AnalysisThresholds = {ram: rule(85), swap: rule(50), gpu: rule(90)};
const iso = (ms: number) => new Date(ms).toISOString();

/** A record with RAM at `percent` of 100 GiB (so used_gb = percent). */
function rec(percent: number | null, extra: Partial<ReadLogRecord> = {}, peak?: number): ReadLogRecord {
	return {
		timestamp: 'unused',
		memory:
			percent === null
				? null
				: {total_gb: 100, used_gb: percent, percent, ...(peak === undefined ? {} : {peak_percent: peak})},
		...extra,
	};
}

/** Series of RAM percents, one record every `step` s from T0, with interval_s = step unless told. */
function ramSeries(percents: readonly number[], step = 30, interval: number | null = step): Series {
	const c = new SeriesCollector();
	percents.forEach((p, i) => {
		c.add(rec(p, interval === null ? {} : {interval_s: interval}), T0 + i * step * 1000);
	});
	return c.finish();
}

const ramOf = (series: Series) => {
	const a = analyze(series, thresholds);
	const ram = a.metrics.find(m => m.id === 'ram');
	if (!ram) throw new Error('no ram');
	return {a, ram};
};

describe('statistics', () => {
	test('10 records 30 s apart with known percents', () => {
		// Values 10,20,…,90,95: min 10; mean (450 + 95) / 10 = 54.5; sorted peaks = values;
		// p50 at rank 4.5 → 50 + 0.5·10 = 55; p95 at rank 8.55 → 90 + 0.55·5 = 92.75; max 95.
		const {a, ram} = ramOf(ramSeries([10, 20, 30, 40, 50, 60, 70, 80, 90, 95]));
		expect(a.records).toBe(10);
		expect(a.first).toBe('2026-11-22T00:00:00.000Z');
		expect(a.last).toBe('2026-11-22T00:04:30.000Z');
		expect(ram.samples).toBe(10);
		expect(ram.min).toBe(10);
		expect(ram.mean).toBeCloseTo(54.5, 10);
		expect(ram.p50).toBeCloseTo(55, 10);
		expect(ram.p95).toBeCloseTo(92.75, 10);
		expect(ram.max).toBe(95);
		// 90 and 95 are ≥ 85: two records of 30 s each.
		expect(ram.time_above_threshold_s).toBe(60);
		// One episode: from the start of record 8's window (240 s − 30 s) to record 9 (270 s).
		expect(ram.episodes).toHaveLength(1);
		expect(ram.episodes[0]).toMatchObject({
			start: '2026-11-22T00:03:30.000Z',
			end: '2026-11-22T00:04:30.000Z',
			duration_s: 60,
			peak: 95,
		});
		expect(a.breached).toBe(true);
		expect(a.gaps).toEqual([]);
		expect(a.restarts).toEqual([]);
	});

	test('max and percentiles come from the peaks, min and mean from the values', () => {
		// Value 50 throughout; peaks 50 ×9 and one 99: p50 50, p95 at rank 8.55 → 50 + 0.55·49 = 76.95.
		const c = new SeriesCollector();
		for (let i = 0; i < 10; i++) c.add(rec(50, {interval_s: 30}, i === 4 ? 99 : 50), T0 + i * 30_000);
		const {ram} = ramOf(c.finish());
		expect(ram.min).toBe(50);
		expect(ram.mean).toBe(50);
		expect(ram.p50).toBe(50);
		expect(ram.p95).toBeCloseTo(76.95, 10);
		expect(ram.max).toBe(99);
		// The peak alone crossed 85: one 30 s sample above.
		expect(ram.time_above_threshold_s).toBe(30);
		expect(ram.episodes).toHaveLength(1);
		expect(ram.episodes[0]?.peak).toBe(99);
	});

	test('below the threshold throughout: nothing above, not breached', () => {
		const {a, ram} = ramOf(ramSeries([10, 20, 30]));
		expect(ram.time_above_threshold_s).toBe(0);
		expect(ram.episodes).toEqual([]);
		expect(a.breached).toBe(false);
	});

	test('a value exactly at the threshold counts as above', () => {
		const {ram} = ramOf(ramSeries([84.9, 85, 84.9]));
		expect(ram.time_above_threshold_s).toBe(30);
	});
});

describe('episodes', () => {
	test('merged across a short gap (one record below), not across a long one (two below)', () => {
		// t(s):   0   30  60  90  120 150 180 210
		// peak:   90  91  50  92  50  50  93  50
		// Episode A: records 0–1, from 0 s (the first record's window is cut at the data's start) to 30 s.
		// Record 3 starts at 60 s: 30 s after A ends, < 2 intervals (60 s) → merged: 0 s … 90 s (90 s, peak
		// 92). Record 6 starts at 150 s: 60 s after 90 s, not < 60 s → a second episode 150 s … 180 s (30 s, peak 93).
		const {ram} = ramOf(ramSeries([90, 91, 50, 92, 50, 50, 93, 50]));
		expect(ram.episodes.map(e => [e.start, e.end, e.duration_s, e.peak])).toEqual([
			[iso(T0), iso(T0 + 90_000), 90, 92],
			[iso(T0 + 150_000), iso(T0 + 180_000), 30, 93],
		]);
		// Time above counts samples only: records 1, 3 and 6 × 30 s (record 0's window is before the data).
		expect(ram.time_above_threshold_s).toBe(90);
	});

	test('without interval_s a sample lasts the median gap', () => {
		// Times 0, 10, 20, 30, 40 s (median gap 10 s); two records above.
		const {a, ram} = ramOf(ramSeries([50, 90, 95, 50, 50], 10, null));
		expect(a.median_gap_s).toBe(10);
		expect(ram.time_above_threshold_s).toBe(20);
		expect(ram.episodes[0]).toMatchObject({start: iso(T0), end: iso(T0 + 20_000), duration_s: 20});
	});
});

describe('trend', () => {
	test('a perfectly linear leak: slope and crossing time', () => {
		// 50 % + 2 %/h: + 0.5 every 15 min for 3 h (13 records, exact in float32); used_gb = percent
		// (100 GiB total). The line reaches 85 % at (85 − 50) / 2 = 17.5 h → 17:30.
		const c = new SeriesCollector();
		for (let i = 0; i <= 12; i++) c.add(rec(50 + 0.5 * i, {interval_s: 900}), T0 + i * 900_000);
		const {ram} = ramOf(c.finish());
		expect(ram.trend.slope_per_hour).toBeCloseTo(2, 9);
		expect(ram.trend.slope_gib_per_hour).toBeCloseTo(2, 9);
		expect(ram.trend.direction).toBe('rising');
		expect(Date.parse(ram.trend.projected_breach_at ?? '')).toBeCloseTo(Date.parse('2026-11-22T17:30:00Z'), -3);
	});

	test('fitted over the last trendWindowHours only (default 6)', () => {
		// Flat 40 % for hours 0–4, then 40 + 3 %/h up to hour 10 (58 %). The last 6 h (4–10) are
		// exactly linear: slope 3, crossing 85 at 4 + 45 / 3 = 19 h.
		const c = new SeriesCollector();
		for (let h = 0; h <= 10; h++) c.add(rec(h <= 4 ? 40 : 40 + 3 * (h - 4), {interval_s: 3600}), T0 + h * 3_600_000);
		const series = c.finish();
		const ram = analyze(series, thresholds).metrics[0]!;
		expect(ram.trend.slope_per_hour).toBeCloseTo(3, 9);
		expect(ram.trend.points).toBe(7);
		expect(Date.parse(ram.trend.projected_breach_at ?? '')).toBeCloseTo(T0 + 19 * 3_600_000, -3);
		// Over all 10 h the slope is smaller (the flat start pulls it down).
		const wide = analyze(series, thresholds, {trendWindowHours: 10}).metrics[0]!;
		expect(wide.trend.slope_per_hour).toBeLessThan(3);
		expect(wide.trend.points).toBe(11);
	});

	test('falling and flat: no projected breach', () => {
		const falling = ramOf(ramSeries([80, 70, 60, 50], 3600)).ram.trend;
		expect(falling.slope_per_hour).toBeCloseTo(-10, 9);
		expect(falling.direction).toBe('falling');
		expect(falling.projected_breach_at).toBeNull();
		const flat = ramOf(ramSeries([40, 40, 40, 40])).ram.trend;
		expect(flat.slope_per_hour).toBe(0);
		expect(flat.direction).toBe('flat');
		expect(flat.projected_breach_at).toBeNull();
	});

	test('already above the threshold: no breach in the future to project', () => {
		expect(ramOf(ramSeries([86, 87, 88, 89], 3600)).ram.trend.projected_breach_at).toBeNull();
	});
});

describe('gaps and restarts', () => {
	test('records further apart than 3 × the interval are a gap', () => {
		// 0, 30, 60, 150 (90 s: exactly 3 × 30, no gap), 290 (140 s > 90 s: a gap).
		const c = new SeriesCollector();
		for (const s of [0, 30, 60, 150, 290]) c.add(rec(40, {interval_s: 30}), T0 + s * 1000);
		const a = analyze(c.finish(), thresholds);
		expect(a.gaps).toEqual([{start: iso(T0 + 150_000), end: iso(T0 + 290_000), duration_s: 140}]);
	});

	test("another host's records are not a restart: analyzeLog gives each host its own analysis", () => {
		const c = new SeriesCollector();
		c.add(rec(40, {host: 'a', interval_s: 30}), T0);
		c.add(rec(40, {host: 'a', interval_s: 30}), T0 + 30_000);
		c.add(rec(90, {host: 'b', interval_s: 30}), T0 + 60_000);
		const log = analyzeLog(c.finish(), thresholds);
		expect(log.hosts.map(h => [h.host, h.analysis.records, h.analysis.hosts, h.analysis.restarts])).toEqual([
			['b', 1, ['b'], []],
			['a', 2, ['a'], []],
		]);
	});

	test('time going backwards is a restart, and the series is sorted by time', () => {
		// A later file read first: 100 s, 130 s, then 0 s, 30 s.
		const c = new SeriesCollector();
		c.add(rec(70, {interval_s: 30}), T0 + 100_000);
		c.add(rec(80, {interval_s: 30}), T0 + 130_000);
		c.add(rec(10, {interval_s: 30}), T0);
		c.add(rec(20, {interval_s: 30}), T0 + 30_000);
		const series = c.finish();
		expect(series.sorted).toBe(true);
		expect([...series.time]).toEqual([T0, T0 + 30_000, T0 + 100_000, T0 + 130_000]);
		expect([...series.metrics[0]!.value]).toEqual([10, 20, 70, 80]);
		expect([...(series.metrics[0]!.record ?? [])]).toEqual([0, 1, 2, 3]);
		const a = analyze(series, thresholds);
		expect(a.first).toBe(iso(T0));
		expect(a.restarts).toEqual([{time: iso(T0), reason: 'time', previous_time: iso(T0 + 130_000)}]);
	});

	test('ordered input is not re-sorted', () => {
		expect(ramSeries([1, 2, 3]).sorted).toBe(false);
	});
});

describe('metrics present', () => {
	test('GPUs per index with uuid and name, the GPU rule, swap and RAM', () => {
		const c = new SeriesCollector();
		const gpus = (p0: number, p1: number | null) => [
			{index: 0, uuid: 'GPU-aaa', name: 'A100', memory_used_gb: 1, memory_total_gb: 80, memory_percent: p0},
			{
				index: 1,
				uuid: 'GPU-bbb',
				memory_used_gb: null,
				memory_total_gb: null,
				memory_percent: p1,
				peak_memory_percent: p1 === null ? null : p1 + 5,
			},
		];
		c.add(
			rec(40, {
				interval_s: 30,
				swap: {total_gb: 8, used_gb: 1, percent: 12.5},
				gpu: {memory_allocated_gb: 1, memory_total_gb: 80, memory_percent: 50},
				gpus: gpus(50, null),
			}),
			T0,
		);
		c.add(
			rec(40, {
				interval_s: 30,
				swap: {total_gb: 8, used_gb: 2, percent: 25},
				gpu: {memory_allocated_gb: 1, memory_total_gb: 80, memory_percent: 60},
				gpus: gpus(91, 70),
			}),
			T0 + 30_000,
		);
		c.add(
			rec(40, {
				interval_s: 30,
				swap: {total_gb: 8, used_gb: 2, percent: 25},
				gpu: {memory_allocated_gb: 1, memory_total_gb: 80, memory_percent: 60, peak_memory_percent: 95},
				gpus: gpus(60, 88),
			}),
			T0 + 60_000,
		);
		const series = c.finish();
		expect(series.metrics.map(m => m.id)).toEqual(['ram', 'swap', 'gpu', 'gpu0', 'gpu1']);
		const a = analyze(series, thresholds);
		const by = (id: string) => a.metrics.find(m => m.id === id)!;
		expect(by('gpu0')).toMatchObject({uuid: 'GPU-aaa', name: 'A100', samples: 3, min: 50, max: 91, threshold: 90});
		expect(by('gpu0').label).toBe('GPU 0 A100 (GPU-aaa)');
		// gpu1 has no memory in the first record; peaks are value + 5: 75, 93 (≥ 90 for 30 s).
		expect(by('gpu1')).toMatchObject({
			uuid: 'GPU-bbb',
			name: null,
			samples: 2,
			min: 70,
			max: 93,
			time_above_threshold_s: 30,
		});
		expect(by('gpu1').episodes[0]).toMatchObject({start: iso(T0 + 30_000), end: iso(T0 + 60_000), peak: 93});
		// The aggregate's own peak field: 95 ≥ 90.
		expect(by('gpu')).toMatchObject({max: 95, time_above_threshold_s: 30});
		// swap: 12.5, 25, 25 against 50.
		expect(by('swap')).toMatchObject({min: 12.5, max: 25, time_above_threshold_s: 0, threshold: 50});
		expect(by('swap').mean).toBeCloseTo(62.5 / 3, 10);
	});

	test('no GPU and no swap: those metrics are absent', () => {
		const c = new SeriesCollector();
		c.add(rec(40, {swap: null, gpu: null, gpus: []}), T0);
		c.add(rec(41), T0 + 1000);
		const a = analyze(c.finish(), thresholds);
		expect(a.metrics.map(m => m.id)).toEqual(['ram']);
	});

	test('records without memory count as records but not as RAM points', () => {
		const c = new SeriesCollector();
		c.add(rec(null), T0);
		c.add(rec(30), T0 + 1000);
		const a = analyze(c.finish(), thresholds);
		expect(a.records).toBe(2);
		expect(a.metrics[0]?.samples).toBe(1);
	});

	test('no records at all', () => {
		const a = analyze(new SeriesCollector().finish(), thresholds);
		expect(a).toMatchObject({
			records: 0,
			first: null,
			last: null,
			metrics: [],
			gaps: [],
			restarts: [],
			breached: false,
		});
	});

	test('growable arrays: many records keep every point', () => {
		const c = new SeriesCollector();
		for (let i = 0; i < 5000; i++) c.add(rec(i % 100, {interval_s: 1}), T0 + i * 1000);
		const series = c.finish();
		expect(series.records).toBe(5000);
		expect(series.metrics[0]?.count).toBe(5000);
		expect(series.metrics[0]?.value[4999]).toBe(99);
		const ram = analyze(series, thresholds).metrics[0]!;
		// 85…99 in each block of 100: 15 s above per block, 50 blocks, one episode each.
		expect(ram.time_above_threshold_s).toBe(750);
		expect(ram.episodes).toHaveLength(50);
	});
});
