import {describe, expect, test} from 'vitest';
import {analyze, type AnalysisThresholds, type MetricAnalysis} from '../../src/memlog/analyze.js';
import type {ReadLogRecord} from '../../src/memlog/record.js';
import {SeriesCollector} from '../../src/memlog/series.js';

// Time above the threshold and the episodes are of the data, never of time outside it: a record stands for the
// window before its timestamp, but that window is cut at the metric's first sample and at the sample before (issue
// 16: "above threshold 2 m 30 s" within a 2 m 07 s span).

const T0 = Date.parse('2026-11-22T22:07:00Z');
const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});
const thresholds: AnalysisThresholds = {ram: rule(85), swap: rule(50), gpu: rule(90)};
const iso = (ms: number) => new Date(ms).toISOString();

const ramRecord = (percent: number, interval: number, extra: Partial<ReadLogRecord> = {}): ReadLogRecord => ({
	timestamp: 'unused',
	interval_s: interval,
	memory: {total_gb: 100, used_gb: percent, percent},
	...extra,
});

/** RAM of a log whose records are at `seconds` (from T0), each with `interval_s`, at `percent`. */
function ramAt(seconds: readonly number[], percent: (i: number) => number, interval: number): MetricAnalysis {
	const c = new SeriesCollector();
	seconds.forEach((s, i) => {
		c.add(ramRecord(percent(i), interval), T0 + s * 1000);
	});
	return analyze(c.finish(), thresholds).metrics.find(m => m.id === 'ram')!;
}

describe('clipped to the data', () => {
	test('above throughout a log sparser than its interval: time above is the span, the episode the data', () => {
		// The log: 6 records 25.4 s apart (span 2 m 07 s) that say interval_s 30, all above 85 %.
		const seconds = [0, 25.4, 50.8, 76.2, 101.6, 127];
		const ram = ramAt(seconds, () => 91.34, 30);
		expect(ram.time_above_threshold_s).toBeCloseTo(127, 9);
		expect(ram.episodes).toHaveLength(1);
		expect(ram.episodes[0]).toMatchObject({start: iso(T0), end: iso(T0 + 127_000)});
		expect(ram.episodes[0]!.duration_s).toBeCloseTo(127, 9);
	});

	test('a record written early (the last one, on shutdown) counts only the time since the record before', () => {
		const ram = ramAt([0, 5, 10, 14.2], () => 90, 5);
		expect(ram.time_above_threshold_s).toBeCloseTo(14.2, 9);
		expect(ram.episodes[0]!.duration_s).toBeCloseTo(14.2, 9);
	});

	test("a GPU that appears mid-log: its episode starts at its own first sample, not its record's window", () => {
		const c = new SeriesCollector();
		for (let i = 0; i < 6; i++) {
			const gpus = i < 3 ? [] : [{index: 0, memory_used_gb: 76, memory_total_gb: 80, memory_percent: 95}];
			c.add(ramRecord(40, 30, {gpus}), T0 + i * 30_000);
		}
		const gpu0 = analyze(c.finish(), thresholds).metrics.find(m => m.id === 'gpu0')!;
		expect(gpu0.episodes.map(e => [e.start, e.end])).toEqual([[iso(T0 + 90_000), iso(T0 + 150_000)]]);
		expect(gpu0.time_above_threshold_s).toBe(60);
	});

	test('inside a log the window is the interval: two records above after one below count 2 × 30 s', () => {
		const ram = ramAt([0, 30, 60, 90], i => (i < 2 ? 50 : 90), 30);
		expect(ram.time_above_threshold_s).toBe(60);
		expect(ram.episodes[0]).toMatchObject({start: iso(T0 + 30_000), end: iso(T0 + 90_000), duration_s: 60});
	});

	test('any spacing, interval and values: time above ≤ span, every episode inside [first, last]', () => {
		// A small deterministic generator: the same 200 logs every run.
		let seed = 16;
		const random = () => {
			seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
			return seed / 2_147_483_648;
		};
		for (let run = 0; run < 200; run++) {
			const count = 1 + Math.floor(random() * 30);
			const seconds: number[] = [];
			let t = 0;
			for (let i = 0; i < count; i++) {
				seconds.push(t);
				t += Math.round(random() * 60_000) / 1000;
			}
			const interval = 1 + Math.floor(random() * 60);
			const ram = ramAt(seconds, () => (random() < 0.6 ? 90 : 50), interval);
			const first = T0 + seconds[0]! * 1000;
			const last = T0 + seconds[seconds.length - 1]! * 1000;
			expect(ram.time_above_threshold_s).toBeLessThanOrEqual((last - first) / 1000 + 1e-9);
			let inEpisodes = 0;
			for (const e of ram.episodes) {
				expect(e.start_ms).toBeGreaterThanOrEqual(first);
				expect(e.end_ms).toBeLessThanOrEqual(last);
				inEpisodes += e.duration_s;
			}
			expect(ram.time_above_threshold_s).toBeLessThanOrEqual(inEpisodes + 1e-9);
		}
	});
});
