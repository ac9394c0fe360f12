import {describe, expect, test} from 'vitest';
import {analyze, type AnalysisThresholds} from '../../src/memlog/analyze.js';
import type {ReadLogRecord} from '../../src/memlog/record.js';
import {analysisJson} from '../../src/memlog/report-json.js';
import {formatReport} from '../../src/memlog/report.js';
import {SeriesCollector} from '../../src/memlog/series.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});
const thresholds: AnalysisThresholds = {ram: rule(85), swap: rule(50), gpu: rule(90)};

const ram = (percent: number, extra: Partial<ReadLogRecord> = {}): ReadLogRecord => ({
	timestamp: 'unused',
	interval_s: 30,
	host: 'node-1',
	memory: {total_gb: 100, used_gb: percent, percent},
	...extra,
});

/** 10 records 30 s apart: 10…90, 95 (see analyze.test.ts for the hand-worked figures). */
function small() {
	const c = new SeriesCollector();
	[10, 20, 30, 40, 50, 60, 70, 80, 90, 95].forEach((p, i) => {
		c.add(ram(p), T0 + i * 30_000);
	});
	return analyze(c.finish(), thresholds);
}

const width = (line: string) => [...line].length;

describe('text', () => {
	test('fits 80 columns and shows the figures', () => {
		const text = formatReport(small(), {format: 'text', files: ['a.jsonl', 'b.jsonl'], skipped: 3});
		const lines = text.split('\n');
		for (const line of lines) expect(width(line)).toBeLessThanOrEqual(80);
		expect(lines).toContain('Records  10 from 2 files, 3 lines skipped');
		expect(text).toContain('Span     2026-11-22 10:00:00 → 2026-11-22 10:04:30 UTC (4 m 30 s)');
		// p95 = 92.75 prints as 92.7 or 92.8 depending on the float; check the exact ones.
		expect(text).toMatch(/ {2}min 10\.0 {2}mean 54\.5 {2}p50 55\.0 {2}p95 92\.[78] {2}max 95\.0 %/);
		expect(text).toContain('RAM  (threshold 85 %, 10 samples)');
		expect(text).toContain('above threshold: 1 m 00 s in 1 episode');
		expect(text).toContain('2026-11-22 10:03:30 → 10:04:30  1 m 00 s  peak 95.0 %');
		expect(text).toContain('Gaps: none');
		expect(text).toContain('Restarts: none');
		expect(text).toContain('BREACHED');
		// A sparkline of 40 block characters, rising to █ (95 %).
		const spark = lines.find(l => /^ {2}[▁▂▃▄▅▆▇█]+$/.test(l));
		expect(spark).toBeDefined();
		expect(width(spark!.trim())).toBe(40);
		// The first bucket holds 10 % and the window of the 20 % record (0–30 s): ▂ (20 % → ⌊1.6⌋).
		expect(spark!.trim().startsWith('▂')).toBe(true);
		expect(spark!.trim().endsWith('█')).toBe(true);
	});

	test('a linear leak: trend with GiB/h and the crossing time', () => {
		// 50 % + 0.5 every 15 min (2 %/h) for 3 h; used_gb = percent → crosses 85 % at 10:00 + 17.5 h.
		const c = new SeriesCollector();
		for (let i = 0; i <= 12; i++) c.add(ram(50 + 0.5 * i, {interval_s: 900}), T0 + i * 900_000);
		const text = formatReport(analyze(c.finish(), thresholds), {format: 'text'});
		expect(text).toContain('trend: +2.0 GiB/h (+2.0 %/h); crosses 85 % at 2026-11-23 03:30');
		expect(text).toContain('above threshold: never');
	});

	test('flat and falling trends', () => {
		// 40 records 30 s apart = 20 minutes: enough data for a trend (15 minutes and 5 points).
		const flat = new SeriesCollector();
		for (let i = 0; i < 40; i++) flat.add(ram(40), T0 + i * 30_000);
		expect(formatReport(analyze(flat.finish(), thresholds), {format: 'text'})).toContain('trend: flat');
		// Two minutes of data: no direction, and no crossing, is claimed.
		const short = new SeriesCollector();
		for (let i = 0; i < 5; i++) short.add(ram(40 + 10 * i), T0 + i * 30_000);
		const shortAnalysis = analyze(short.finish(), thresholds);
		expect(formatReport(shortAnalysis, {format: 'text'})).toContain(
			'trend: too little data to tell (2 m 00 s, 5 points)',
		);
		expect(shortAnalysis.metrics[0]?.trend.projected_breach_at).toBeNull();
		const falling = new SeriesCollector();
		for (let i = 0; i < 5; i++) falling.add(ram(80 - 10 * i, {interval_s: 3600}), T0 + i * 3_600_000);
		expect(formatReport(analyze(falling.finish(), thresholds), {format: 'text'})).toContain(
			'trend: falling (−10.0 GiB/h (−10.0 %/h))',
		);
	});

	test("the trend states the span and points it fitted, as the Span line states the data's", () => {
		// Issue 16: the demo's report said span 30 s and trend "(1 min, 7 points)". 7 records 5 s apart: 30 s.
		const c = new SeriesCollector();
		for (let i = 0; i < 7; i++) c.add(ram(80 + i, {interval_s: 5}), T0 + i * 5000);
		const text = formatReport(analyze(c.finish(), thresholds), {format: 'text'});
		expect(text).toContain('UTC (30 s)');
		expect(text).toContain('trend: too little data to tell (30 s, 7 points)');
		// 2 m 07 s of data read as 2 m 07 s in both places, not as "2 min".
		const d = new SeriesCollector();
		for (const s of [0, 25.4, 50.8, 76.2, 101.6, 127]) d.add(ram(40, {interval_s: 30}), T0 + s * 1000);
		const longer = formatReport(analyze(d.finish(), thresholds), {format: 'text'});
		expect(longer).toContain('UTC (2 m 07 s)');
		expect(longer).toContain('trend: too little data to tell (2 m 07 s, 6 points)');
	});

	test('up to 5 episodes, then "+N more"; gaps and restarts listed', () => {
		// 7 episodes: one record at 90 % every 5 minutes (long gaps below between them).
		const c = new SeriesCollector();
		// Requeued at record 60: the SLURM job's restart count goes from 0 to 1.
		const slurm = (i: number) => ({slurm: {job_id: '7', restart_count: i < 60 ? 0 : 1}});
		for (let i = 0; i < 70; i++) c.add(ram(i % 10 === 0 ? 90 : 40, slurm(i)), T0 + i * 30_000);
		c.add(ram(40, slurm(70)), T0 + 3_600_000);
		const text = formatReport(analyze(c.finish(), thresholds), {format: 'text', width: 60});
		for (const line of text.split('\n')) expect(width(line)).toBeLessThanOrEqual(60);
		// 30 s each, but the first: at the log's first record, whose window lies before the data.
		expect(text).toContain('above threshold: 3 m 00 s in 7 episodes');
		expect(text.split('\n').filter(l => l.includes('peak 90.0 %'))).toHaveLength(5);
		expect(text).toContain('    +2 more');
		expect(text).toContain('Gaps: 1');
		expect(text).toContain('  2026-11-22 10:34:30 → 2026-11-22 11:00:00  25 m 30 s');
		expect(text).toContain('Restarts: 1');
		expect(text).toContain('  2026-11-22 10:30:00  requeued: SLURM job 7 restart 0 → 1');
	});
});

describe('markdown', () => {
	test('a table per section', () => {
		const md = formatReport(small(), {format: 'markdown', files: ['a.jsonl'], skipped: 0});
		const lines = md.split('\n');
		expect(lines).toContain('| Records | 10 |');
		expect(lines).toContain('| Files | 1 |');
		expect(lines).toContain('| Skipped lines | 0 |');
		expect(lines).toContain('| Breached | yes |');
		expect(lines).toContain(
			'| Metric | Threshold % | Min | Mean | p50 | p95 | Max | Above threshold | Episodes | Trend |',
		);
		expect(
			lines.some(l => /^\| RAM \| 85 \| 10\.0 \| 54\.5 \| 55\.0 \| 92\.[78] \| 95\.0 \| 1 m 00 s \| 1 \| /.test(l)),
		).toBe(true);
		expect(lines).toContain('| Metric | Start | End | Duration | Peak % |');
		expect(lines).toContain('| RAM | 2026-11-22T10:03:30.000Z | 2026-11-22T10:04:30.000Z | 1 m 00 s | 95.0 |');
		expect(md).toContain('### Gaps\n\nNone.');
		expect(md).toContain('### Restarts\n\nNone.');
		// Every table row has the header's number of cells.
		for (const line of lines.filter(l => l.startsWith('|'))) expect(line.endsWith('|')).toBe(true);
	});

	test('pipes in labels are escaped', () => {
		const c = new SeriesCollector();
		c.add(
			{
				timestamp: '',
				memory: null,
				gpus: [{index: 0, name: 'a|b', memory_used_gb: 1, memory_total_gb: 2, memory_percent: 50}],
			},
			T0,
		);
		expect(formatReport(analyze(c.finish(), thresholds), {format: 'markdown'})).toContain('| GPU 0 a\\|b |');
	});
});

describe('json', () => {
	test('exact shape on a small case', () => {
		// 4 records 30 s apart, RAM 80, 90 (peak 92), 80, 80; one GPU at 10 %; no swap.
		const c = new SeriesCollector();
		const gpus = [{index: 0, uuid: 'GPU-1', memory_used_gb: 8, memory_total_gb: 80, memory_percent: 10}];
		c.add(ram(80, {gpus}), T0);
		c.add({...ram(90, {gpus}), memory: {total_gb: 100, used_gb: 90, percent: 90, peak_percent: 92}}, T0 + 30_000);
		c.add(ram(80, {gpus}), T0 + 60_000);
		c.add(ram(80, {gpus}), T0 + 90_000);
		const json = analysisJson(analyze(c.finish(), thresholds), {
			skipped: [{file: 'memory.jsonl', line: 3, reason: 'not JSON'}],
		});
		// RAM: min 80, mean 82.5; peaks sorted 80 80 80 92 → p50 80, p95 rank 2.85 → 80 + 0.85·12 = 90.2.
		// Trend: values 80 90 80 80 at 0, 30, 60, 90 s. Theil–Sen (the live estimator's): the six pairwise slopes are
		// +, 0, 0, −, −, 0 → median 0: the one record at 90 is a spike, not a fall (least squares said −120 per hour).
		// 1.5 minutes and 4 points: too little data for a direction.
		expect(json).toEqual({
			records: 4,
			first: '2026-11-22T10:00:00.000Z',
			last: '2026-11-22T10:01:30.000Z',
			breached: true,
			// The rules in the JSON's snake_case, as every key of it.
			thresholds: {
				ram: {critical: 85, warn_margin: 10, hysteresis: 2},
				swap: {critical: 50, warn_margin: 10, hysteresis: 2},
				gpu: {critical: 90, warn_margin: 10, hysteresis: 2},
			},
			metrics: {
				ram: {
					min: 80,
					mean: 82.5,
					p50: 80,
					p95: 90.2,
					max: 92,
					time_above_threshold_s: 30,
					episodes: [{start: '2026-11-22T10:00:00.000Z', end: '2026-11-22T10:00:30.000Z', duration_s: 30, peak: 92}],
					trend: {
						slope_per_hour: 0,
						slope_gib_per_hour: 0,
						projected_breach_at: null,
						direction: 'flat',
						enough_data: false,
						points: 4,
						span_s: 90,
						since: '2026-11-22T10:00:00.000Z',
						after_change: false,
					},
				},
				gpu0: {
					min: 10,
					mean: 10,
					p50: 10,
					p95: 10,
					max: 10,
					time_above_threshold_s: 0,
					episodes: [],
					trend: {
						slope_per_hour: 0,
						projected_breach_at: null,
						direction: 'flat',
						enough_data: false,
						points: 4,
						span_s: 90,
						since: '2026-11-22T10:00:00.000Z',
						after_change: false,
					},
				},
			},
			skipped: [{file: 'memory.jsonl', line: 3, reason: 'not JSON'}],
			gaps: [],
			restarts: [],
		});
		// Plain JSON: survives a round trip unchanged.
		expect(JSON.parse(JSON.stringify(json))).toEqual(json);
	});
});
