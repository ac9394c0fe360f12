import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {scriptedMonitor, TEST_THRESHOLDS} from '../helpers/scripted-monitor.js';
import {testRecorder} from '../helpers/test-recorder.js';
import {slurmState} from '../../src/slurm/scheduler-state.js';
import type {SlurmJob, SlurmView} from '../../src/slurm/types.js';
import {slurmJob} from '../helpers/slurm-job.js';
import type {HostMemory} from '../../src/core/types.js';
import {type AnalysisThresholds, analyze} from '../../src/memlog/analyze.js';
import {readAllRecords, readSeries, type SkippedLine} from '../../src/memlog/reader.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {analysisJson} from '../../src/memlog/report-json.js';
import {formatReport} from '../../src/memlog/report.js';
import {LineScanner} from '../../src/memlog/scan-line.js';
import {RecordFields} from '../../src/memlog/record-fields.js';
import {SeriesCollector} from '../../src/memlog/series.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';

// The memory log under SLURM and under a cgroup limit, written by the real recorder into real files and read back
// by --analyze: a requeue (the job's restart count grows) is a restart of its own; RAM is judged per record against
// the cgroup limit where the record has one, as the live alerts judged it.

const GIB = 1024 ** 3;
const thresholds: AnalysisThresholds = TEST_THRESHOLDS;
const T0 = Date.parse('2026-11-24T10:00:00Z');

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-requeue-log-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

function job(restarts: number): SlurmJob {
	return slurmJob(T0 + 60_000, {jobId: '42', nodes: 'n', batchHost: 'n', restarts, timeLimitS: null, timeLeftS: null});
}

class SlurmSources extends ScriptedSources {
	view: SlurmView | null = null;
	readonly scheduler = {current: () => slurmState(this.view ?? {status: 'not-found', jobId: '42', readAt: 0})};
}

/** A traintop run: a Monitor on scripted sources ticking every second from `start`, into a real recorder. */
function traintop(file: string, start: number, withSlurm: boolean) {
	const sources = withSlurm ? new SlurmSources() : new ScriptedSources();
	let now = start;
	const monitor = scriptedMonitor(sources, () => now);
	const recorder = testRecorder(file, 5000);
	return {
		sources,
		async ticks(count: number, memory: HostMemory = hostMemory(40)) {
			sources.memory = memory;
			for (let i = 0; i < count; i++) {
				recorder.add(await monitor.tick());
				now += 1000;
			}
		},
		close: () => recorder.close(),
	};
}

const ok = (restarts: number): SlurmView => ({status: 'ok', job: job(restarts), readAt: T0});

async function linesOf(file: string): Promise<string[]> {
	return (await readFile(file, 'utf8')).trim().split('\n');
}

/** The analysis by the fast path (the byte scanner) and by the slow one (JSON.parse, the schema): they must agree. */
async function analyseBothWays(file: string) {
	const skipped: SkippedLine[] = [];
	const fast = analyze(await readSeries([file], skipped), thresholds);
	const collector = new SeriesCollector();
	for (const r of await readAllRecords([file], skipped)) collector.add(r.record, r.time);
	const slow = analyze(collector.finish(), thresholds);
	expect(skipped).toEqual([]);
	expect(analysisJson(fast, {skipped: []})).toEqual(analysisJson(slow, {skipped: []}));
	return fast;
}

/**
 * Every line without level changes is one the byte scanner reads itself: the new fields are on the fast path, not
 * left to JSON.parse (a non-empty `alerts` is always left to it, by design).
 */
function expectScanned(lines: readonly string[]): void {
	const scanner = new LineScanner();
	const quiet = lines.filter(line => line.includes('"alerts":[]'));
	expect(quiet.length).toBeGreaterThan(1);
	for (const line of quiet) {
		const buf = Buffer.from(line);
		expect(scanner.scan(buf, 0, buf.length, new RecordFields()), line).toBe(true);
	}
}

describe('requeues', () => {
	test('each record names its SLURM job; a grown restart count is a requeue restart in text, markdown and JSON', async () => {
		const file = path.join(dir, 'requeue.jsonl');
		// The first run: the controller answers, then stops answering (the last known job is kept).
		const first = traintop(file, T0, true);
		const s1 = first.sources as SlurmSources;
		s1.view = ok(0);
		await first.ticks(10);
		// The reader's view holds no job here: the record keeps the job the log knew.
		s1.view = {status: 'unavailable', reason: 'slurmctld not answering', readAt: T0, last: null};
		await first.ticks(5);
		first.close();
		// After `scontrol requeue` the batch script runs again: a new traintop, before its first answer, then restart 1;
		// later a second requeue seen by the same traintop (a monitor on a login node outlives the job's runs).
		const second = traintop(file, T0 + 120_000, true);
		const s2 = second.sources as SlurmSources;
		s2.view = {status: 'unavailable', reason: 'not read yet', readAt: 0, last: null};
		// The first window: 6 samples (its close lands on the 6th).
		await second.ticks(6);
		s2.view = ok(1);
		await second.ticks(10);
		s2.view = ok(2);
		await second.ticks(5);
		second.close();

		const lines = await linesOf(file);
		const slurm = lines.map(l => (JSON.parse(l) as LogRecord).slurm);
		expect(slurm).toEqual([
			{job_id: '42', restart_count: 0},
			{job_id: '42', restart_count: 0},
			{job_id: '42', restart_count: 0},
			null,
			{job_id: '42', restart_count: 1},
			{job_id: '42', restart_count: 1},
			{job_id: '42', restart_count: 2},
		]);
		expectScanned(lines);

		const analysis = await analyseBothWays(file);
		const requeues = analysis.restarts.filter(r => r.reason === 'requeue');
		expect(requeues).toEqual([
			expect.objectContaining({
				time: (JSON.parse(lines[4]!) as LogRecord).timestamp,
				job_id: '42',
				restart_count: 1,
				previous_restart_count: 0,
			}),
			expect.objectContaining({
				time: (JSON.parse(lines[6]!) as LogRecord).timestamp,
				job_id: '42',
				restart_count: 2,
				previous_restart_count: 1,
			}),
		]);
		// Same host, time always forward: the requeues are the only restarts.
		expect(analysis.restarts).toHaveLength(2);

		const text = formatReport(analysis, {format: 'text'});
		expect(text).toContain('Restarts: 2');
		expect(text).toMatch(/ {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}requeued: SLURM job 42 restart 0 → 1\n/);
		expect(text).toContain('requeued: SLURM job 42 restart 1 → 2');
		const markdown = formatReport(analysis, {format: 'markdown'});
		expect(markdown).toContain('| requeue | requeued: SLURM job 42 restart 0 → 1 |');
		expect(analysisJson(analysis, {skipped: []}).restarts).toEqual([
			{
				time: requeues[0]!.time,
				reason: 'requeue',
				host: null,
				job_id: '42',
				restart_count: 1,
				previous_restart_count: 0,
			},
			{
				time: requeues[1]!.time,
				reason: 'requeue',
				host: null,
				job_id: '42',
				restart_count: 2,
				previous_restart_count: 1,
			},
		]);
	});

	test('a log written before the slurm field (no `slurm` key) analyses exactly as the same log with slurm null', async () => {
		const file = path.join(dir, 'outside-slurm.jsonl');
		const run = traintop(file, T0, false);
		await run.ticks(8, hostMemory(40));
		await run.ticks(8, hostMemory(95));
		run.close();
		const lines = await linesOf(file);
		expect(lines.map(l => (JSON.parse(l) as LogRecord).slurm)).toEqual(lines.map(() => null));
		// What the earlier writer wrote: the same records without the key.
		const older = path.join(dir, 'older.jsonl');
		const olderLines = lines.map(l => {
			const {slurm: _, ...rest} = JSON.parse(l) as LogRecord;
			return JSON.stringify(rest);
		});
		expect(olderLines[0]).not.toContain('slurm');
		await writeFile(older, `${olderLines.join('\n')}\n`);
		expectScanned(olderLines);

		const now = await analyseBothWays(file);
		const before = await analyseBothWays(older);
		expect(analysisJson(before, {skipped: []})).toEqual(analysisJson(now, {skipped: []}));
		expect(formatReport(before, {format: 'text'})).toBe(formatReport(now, {format: 'text'}));
		expect(before.restarts).toEqual([]);
		// No cgroup anywhere: the RAM is the host's, labelled and shaped as it always was.
		expect(before.metrics[0]?.label).toBe('RAM');
		expect(analysisJson(before, {skipped: []}).metrics.ram).not.toHaveProperty('against');
	});
});

test('another job is no requeue, a restart count that stays is none, and records given out of order are put in time order', () => {
	const records: [string, number, number][] = [
		['41', 5, T0],
		['42', 3, T0 + 30_000],
		['42', 3, T0 + 60_000],
		['42', 4, T0 + 90_000],
	];
	for (const order of [records, [...records].reverse()]) {
		const collector = new SeriesCollector();
		for (const [job_id, restart_count, time] of order) {
			collector.add(
				{
					timestamp: new Date(time).toISOString(),
					memory: {total_gb: 64, used_gb: 10, percent: 15.6},
					slurm: {job_id, restart_count},
				},
				time,
			);
		}
		const requeues = analyze(collector.finish(), thresholds).restarts.filter(r => r.reason === 'requeue');
		expect(requeues).toEqual([
			expect.objectContaining({time: new Date(T0 + 90_000).toISOString(), job_id: '42', previous_restart_count: 3}),
		]);
	}
});

/** Host RAM at 30 % of 64 GiB, the job's cgroup at `percent` of a 16 GiB limit. */
function underLimit(percent: number): HostMemory {
	const limit = 16 * GIB;
	return {
		...hostMemory(30),
		cgroup: {
			scope: 'job',
			version: 2,
			path: '/slurm/uid_0/job_42',
			limitBytes: limit,
			usedBytes: (limit * percent) / 100,
			percent,
		},
	};
}

describe('RAM against the cgroup limit', () => {
	test('a log whose every record has the limit: judged against it, and the report says which limit', async () => {
		const file = path.join(dir, 'cgroup.jsonl');
		const run = traintop(file, T0, false);
		// 11 ticks: the first two records (6 and 5 samples) are all at 50 %, the next two at 95 %.
		await run.ticks(11, underLimit(50));
		await run.ticks(10, underLimit(95));
		run.close();
		const lines = await linesOf(file);
		expectScanned(lines);
		// The host's percent stays low: judged against it, nothing would be above the threshold.
		expect(lines.map(l => (JSON.parse(l) as LogRecord).memory?.percent)).toEqual(lines.map(() => 30));

		const analysis = await analyseBothWays(file);
		const ram = analysis.metrics.find(m => m.id === 'ram')!;
		expect(ram.label).toBe('RAM (job cgroup limit 16.0 GiB)');
		expect(ram.max).toBeCloseTo(95, 3);
		expect(ram.min).toBeCloseTo(50, 3);
		expect(ram.episodes).toHaveLength(1);
		expect(analysis.breached).toBe(true);
		// The GiB trend is of the cgroup's use (8 → 15.2 GiB), not the host's constant 19.2 GiB.
		expect(ram.trend.slope_gib_per_hour).toBeGreaterThan(0);
		expect(formatReport(analysis, {format: 'text'})).toContain('RAM (job cgroup limit 16.0 GiB)  (threshold 90 %');
		expect(formatReport(analysis, {format: 'markdown'})).toContain('| RAM (job cgroup limit 16.0 GiB) | 90 |');
		expect(analysisJson(analysis, {skipped: []}).metrics.ram?.against).toEqual({
			cgroup_samples: 4,
			host_samples: 0,
			scope: 'job',
			limit_min_gb: 16,
			limit_max_gb: 16,
		});
	});

	test('a limit that appeared mid-log: each record judged against its own basis, and the mix is said', async () => {
		const file = path.join(dir, 'mixed.jsonl');
		const run = traintop(file, T0, false);
		// Host RAM at 80 %, no limit: below the threshold. Then the ranks' cgroup at 92 % of its limit.
		await run.ticks(11, hostMemory(80));
		await run.ticks(10, underLimit(92));
		run.close();
		const lines = await linesOf(file);
		expect(lines.map(l => (JSON.parse(l) as LogRecord).memory?.cgroup?.percent)).toEqual([
			undefined,
			undefined,
			92,
			92,
		]);

		const analysis = await analyseBothWays(file);
		const ram = analysis.metrics.find(m => m.id === 'ram')!;
		expect(ram.label).toBe('RAM (job cgroup limit 16.0 GiB; host RAM in 2 of 4 samples)');
		expect([ram.min, ram.max]).toEqual([80, expect.closeTo(92, 3)]);
		// Only the records against the limit are above the threshold: one episode over their windows (the first one's
		// starts where the record before it ends).
		expect(ram.episodes).toEqual([
			expect.objectContaining({
				start: (JSON.parse(lines[1]!) as LogRecord).timestamp,
				end: (JSON.parse(lines[3]!) as LogRecord).timestamp,
				peak: expect.closeTo(92, 3),
			}),
		]);
		expect(analysisJson(analysis, {skipped: []}).metrics.ram?.against).toMatchObject({
			cgroup_samples: 2,
			host_samples: 2,
		});
	});
});
