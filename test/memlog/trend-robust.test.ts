import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {analyzeLog} from '../../src/memlog/analyze-log.js';
import type {AnalysisThresholds} from '../../src/memlog/analyze.js';
import {readSeries, type SkippedLine} from '../../src/memlog/reader.js';
import {logJson} from '../../src/memlog/report-json.js';
import {formatLogReport} from '../../src/memlog/report-hosts.js';
import {MemoryLogWriter} from '../../src/memlog/writer.js';
import {ramRecord} from '../helpers/log-records.js';
import {flat, linear, noise, type Profile, sawTooth, seeded, switchAt} from '../helpers/memory-series.js';

// --analyze's trend on logs this test writes through the real writer and reads back with the real reader: the same
// robust estimator as live (core/robust-trend.ts), over the recent part of the log.

const T0 = Date.parse('2026-11-22T13:00:00Z');
const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});
const thresholds: AnalysisThresholds = {ram: rule(85), swap: rule(50), gpu: rule(90)};

let dir = '';
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-trend-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

let files = 0;
/** Writes `count` records `stepS` apart of `profile` (percent by seconds) with σ `sigma` noise, then analyses. */
async function analyzeProfile(profile: Profile, count: number, stepS: number, sigma = 0.3) {
	const file = path.join(dir, `log-${files++}.jsonl`);
	const writer = MemoryLogWriter.open(file);
	const jitter = noise(seeded(files), sigma);
	for (let i = 0; i < count; i++) {
		const percent = Math.round(Math.min(100, Math.max(0, profile(i * stepS) + jitter())) * 100) / 100;
		writer.append(ramRecord(T0 + i * stepS * 1000, percent, stepS));
	}
	writer.close();
	const skipped: SkippedLine[] = [];
	const log = analyzeLog(await readSeries([file], skipped), thresholds);
	expect(skipped).toEqual([]);
	const ram = log.hosts[0]!.analysis.metrics.find(m => m.id === 'ram')!;
	const text = formatLogReport(log, {format: 'text'});
	const json = logJson(log, {skipped: []});
	return {ram, trend: ram.trend, text, json: json.metrics.ram!.trend};
}

describe('--analyze trend on generated logs', () => {
	test('a steady climb over 5 minutes (12 points): rising, with a crossing time', async () => {
		// 50 → 60 % over 5 min (2 %/min): at 85 % about 12.5 min after the last record.
		const step = 300 / 11;
		const {trend, text, json} = await analyzeProfile(linear(50, 2), 12, step);
		expect(trend).toMatchObject({direction: 'rising', enough_data: true, points: 12, after_change: false});
		expect(trend.slope_per_hour).toBeGreaterThan(100);
		expect(trend.slope_per_hour).toBeLessThan(140);
		const crossing = (Date.parse(trend.projected_breach_at!) - (T0 + 300_000)) / 60_000;
		expect(crossing).toBeGreaterThan(10);
		expect(crossing).toBeLessThan(15);
		expect(text).toContain('; crosses 85 % at 2026-11-22 13:');
		expect(text).toContain('    over the whole log');
		expect(json).toMatchObject({direction: 'rising', enough_data: true, points: 12, since: new Date(T0).toISOString()});
	});

	test('the issue case: 42.7 → 93.5 % over 3.5 min is climbing, not "too little data"', async () => {
		const {trend, text} = await analyzeProfile(linear(42.7, (93.5 - 42.7) / 3.5), 8, 30, 0.5);
		expect(trend).toMatchObject({direction: 'rising', enough_data: true, points: 8});
		expect(text).not.toContain('too little data');
		// Already past 85 % at its end: no crossing ahead to project.
		expect(trend.projected_breach_at).toBeNull();
	});

	test('a spike then a flat hour: flat, over the flat part after the change', async () => {
		// 40 % for 10 min, a climb to 90 % over 10 min, freed back to 45 %, then flat for an hour; 30 s records.
		const profile = switchAt(switchAt(flat(40), 600, linear(40 - 50, 5)), 1200, flat(45));
		const {trend, text, json} = await analyzeProfile(profile, 161, 30);
		expect(trend.direction).toBe('flat');
		expect(trend.enough_data).toBe(true);
		expect(trend.after_change).toBe(true);
		expect(Math.abs(Date.parse(trend.since!) - (T0 + 1_200_000))).toBeLessThanOrEqual(30_000);
		expect(text).toContain('trend: flat');
		expect(text).toContain('    over the last 1 h 00 m, since 2026-11-22 13:20:00, after a change there');
		expect(json).toMatchObject({direction: 'flat', after_change: true});
	});

	test('the issue case: a log flat for its last 26 minutes is not "falling"', async () => {
		// A climb from 30 to 95 % over 20 min, freed at once to 40 %, then 26 minutes flat.
		const profile = switchAt(linear(30, 65 / 20), 1200, flat(40));
		const {trend, text} = await analyzeProfile(profile, 93, 30);
		expect(trend.direction).toBe('flat');
		expect(text).not.toContain('falling');
		expect(trend.span_s).toBeGreaterThan(25 * 60);
		expect(trend.span_s).toBeLessThan(27 * 60);
	});

	test.each([
		['teeth of 10 min', 600],
		['teeth of 3 min', 180],
	])('a saw-tooth over two hours is flat: %s', async (_name, period) => {
		const {trend} = await analyzeProfile(sawTooth(40, 30, period), 241, 30);
		expect(trend.direction).toBe('flat');
		expect(trend.enough_data).toBe(true);
		expect(trend.projected_breach_at).toBeNull();
	});
});
