import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import type {AnalysisThresholds} from '../../src/memlog/analyze.js';
import {analyzeLog} from '../../src/memlog/analyze-log.js';
import {NO_HOST, splitByHost} from '../../src/memlog/by-host.js';
import {readSeries, type SkippedLine} from '../../src/memlog/reader.js';
import type {ReadLogRecord} from '../../src/memlog/record.js';
import {SeriesCollector} from '../../src/memlog/series.js';
import type {Series} from '../../src/memlog/series-types.js';

// One series per host: two nodes' records, in two files or interleaved in one, are two series (no false
// restarts, each host's own peaks), read from real files through the reader `--analyze` uses.

const T0 = Date.parse('2026-11-22T00:00:00Z');
const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});
const thresholds: AnalysisThresholds = {ram: rule(85), swap: rule(50), gpu: rule(90)};
const iso = (ms: number) => new Date(ms).toISOString();

/** A record of our writer's shape: RAM at `ram` % of 100 GiB, one GPU whose uuid names its host. */
function record(host: string | undefined, i: number, ram: number, gpu = 30): ReadLogRecord & {timestamp: string} {
	return {
		timestamp: iso(T0 + i * 30_000),
		...(host === undefined ? {} : {host}),
		interval_s: 30,
		memory: {total_gb: 100, used_gb: ram, percent: ram, peak_percent: ram + 1},
		gpus: [{index: 0, uuid: `GPU-${host}`, name: 'H100', memory_used_gb: 8, memory_total_gb: 80, memory_percent: gpu}],
	};
}

/** node1 at 40 + i % 10 %, node2 at 70 + i % 20 % (peaks one more), 60 records each, 30 s apart. */
const node1 = (i: number) => record('node1', i, 40 + (i % 10), 20);
const node2 = (i: number) => record('node2', i, 70 + (i % 20), 50);
const sixty = Array.from({length: 60}, (_, i) => i);

let dir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-by-host-'));
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

async function logFile(name: string, records: readonly object[]): Promise<string> {
	const file = path.join(dir, name);
	await writeFile(file, `${records.map(r => JSON.stringify(r)).join('\n')}\n`);
	return file;
}

async function read(files: readonly string[]): Promise<Series> {
	const skipped: SkippedLine[] = [];
	const series = await readSeries(files, skipped);
	expect(skipped).toEqual([]);
	return series;
}

/** What each host's analysis says, by host. */
function byHost(series: Series) {
	const log = analyzeLog(series, thresholds);
	return Object.fromEntries(
		log.hosts.map(({host, analysis: a}) => {
			const ram = a.metrics.find(m => m.id === 'ram')!;
			const gpu = a.metrics.find(m => m.id === 'gpu0')!;
			return [host, {records: a.records, ram: [ram.min, ram.max], gpu: [gpu.label, gpu.max], restarts: a.restarts}];
		}),
	);
}

const expected = {
	node1: {records: 60, ram: [40, 50], gpu: ['GPU 0 H100 (GPU-node1)', 20], restarts: []},
	node2: {records: 60, ram: [70, 90], gpu: ['GPU 0 H100 (GPU-node2)', 50], restarts: []},
};

describe('two hosts, one series each', () => {
	test('in two files (traintop-memory.node1.jsonl, traintop-memory.node2.jsonl): no time going back between them', async () => {
		const a = await logFile('traintop-memory.node1.jsonl', sixty.map(node1));
		const b = await logFile('traintop-memory.node2.jsonl', sixty.map(node2));
		const series = await read([a, b]);
		// Read as one series, node2's file went back to node1's start: that was a "restart".
		expect(series.hosts).toEqual(['node1', 'node2']);
		expect(byHost(series)).toEqual(expected);
	});

	test('interleaved in one file: no "host node1 → node2" at every line', async () => {
		const f = await logFile(
			'traintop-memory.jsonl',
			sixty.flatMap(i => [node1(i), node2(i)]),
		);
		expect(byHost(await read([f]))).toEqual(expected);
	});

	test("a host's rotated files still join into its one series; time going back within a host is still a restart", async () => {
		// node1's later file is given first: its records go back in time, within node1 (one restart); node2's do not.
		const late = await logFile('traintop-memory.node1.jsonl', sixty.slice(30).map(node1));
		const early = await logFile('traintop-memory.node1.jsonl.1', sixty.slice(0, 30).map(node1));
		const other = await logFile('traintop-memory.node2.jsonl', sixty.map(node2));
		const hosts = byHost(await read([late, early, other]));
		expect(hosts.node1?.records).toBe(60);
		expect(hosts.node1?.restarts).toEqual([{time: iso(T0), reason: 'time', previous_time: iso(T0 + 59 * 30_000)}]);
		expect(hosts.node2).toEqual(expected.node2);
	});

	test("each host's gaps, and a requeue judged within each host", async () => {
		const slurm = (i: number) => ({slurm: {job_id: '9', restart_count: i < 40 ? 0 : 1}});
		// node2 stops writing for 10 minutes; node1 carries on: read as one series, node1 hid node2's gap.
		const f = await logFile(
			'both.jsonl',
			sixty.flatMap(i => [{...node1(i), ...slurm(i)}, ...(i >= 10 && i < 30 ? [] : [{...node2(i), ...slurm(i)}])]),
		);
		const log = analyzeLog(await read([f]), thresholds);
		const of = (host: string) => log.hosts.find(h => h.host === host)!.analysis;
		expect(of('node1').gaps).toEqual([]);
		expect(of('node2').gaps).toEqual([{start: iso(T0 + 9 * 30_000), end: iso(T0 + 30 * 30_000), duration_s: 630}]);
		for (const host of ['node1', 'node2']) {
			expect(of(host).restarts).toEqual([
				{
					time: iso(T0 + 40 * 30_000),
					reason: 'requeue',
					previous_time: null,
					scheduler: 'SLURM',
					job_id: '9',
					restart_count: 1,
					previous_restart_count: 0,
				},
			]);
		}
	});

	test('worst host first; breached when any host is', async () => {
		const a = await logFile('a.jsonl', sixty.map(node1));
		const b = await logFile('b.jsonl', sixty.map(node2));
		const log = analyzeLog(await read([a, b]), thresholds);
		// node2's RAM peaked at 90 % (≥ 85), node1's at 50 %.
		expect(log.hosts.map(h => h.host)).toEqual(['node2', 'node1']);
		expect(log.hosts.map(h => h.analysis.breached)).toEqual([true, false]);
		expect(log.breached).toBe(true);
		expect(log.records).toBe(120);
		expect([log.first, log.last]).toEqual([iso(T0), iso(T0 + 59 * 30_000)]);
	});
});

describe('--host', () => {
	test("picks one host's records: the same analysis as that host's file alone", async () => {
		const a = await logFile('a.jsonl', sixty.map(node1));
		const b = await logFile('b.jsonl', sixty.map(node2));
		const picked = analyzeLog(await read([a, b]), thresholds, {host: 'node2'});
		const alone = analyzeLog(await read([b]), thresholds);
		expect(picked.hosts).toHaveLength(1);
		expect(picked.hosts[0]?.analysis).toEqual(alone.hosts[0]?.analysis);
	});

	test('a host the logs do not hold is a UsageError naming those they do', async () => {
		const f = await logFile(
			'both.jsonl',
			sixty.flatMap(i => [record('node10', i, 40), node2(i), node1(i)]),
		);
		const series = await read([f]);
		expect(() => analyzeLog(series, thresholds, {host: 'node3'})).toThrow(UsageError);
		expect(() => analyzeLog(series, thresholds, {host: 'node3'})).toThrow(
			'--host node3: no record of that host in the logs; they hold node1, node2, node10',
		);
		const seed = await logFile('seed.jsonl', [record(undefined, 0, 40)]);
		const hostless = await read([seed]);
		expect(() => analyzeLog(hostless, thresholds, {host: 'node1'})).toThrow(
			"--host node1: the logs' records name no host",
		);
	});
});

describe('records that name no host', () => {
	test("beside one host: that host's, one series as before (no copy)", () => {
		const c = new SeriesCollector();
		c.add(record(undefined, 0, 40), T0);
		c.add(record('node1', 1, 50), T0 + 30_000);
		const series = c.finish();
		const parts = splitByHost(series);
		expect(parts).toHaveLength(1);
		expect(parts[0]?.host).toBe('node1');
		expect(parts[0]?.series).toBe(series);
	});

	test(`beside two hosts: a series of their own, "${NO_HOST}", listed last`, () => {
		const c = new SeriesCollector();
		c.add(record(undefined, 0, 40), T0);
		c.add(record('node2', 0, 50), T0);
		c.add(record('node1', 1, 60), T0 + 30_000);
		c.add(record(undefined, 2, 45), T0 + 60_000);
		const parts = splitByHost(c.finish());
		expect(parts.map(p => [p.host, p.series.records, p.series.hosts, [...p.series.metrics[0]!.value]])).toEqual([
			['node2', 1, ['node2'], [50]],
			['node1', 1, ['node1'], [60]],
			[NO_HOST, 2, [], [40, 45]],
		]);
		expect(splitByHost(c.finish(), NO_HOST).map(p => p.series.records)).toEqual([2]);
	});
});

test("a metric missing from some of a host's records keeps its points on the right records", () => {
	// node1's GPU is in records 0 and 2 only; node2 has none: node2's series has no gpu0 metric.
	const c = new SeriesCollector();
	const noGpu = (r: ReadLogRecord): ReadLogRecord => ({...r, gpus: []});
	c.add(record('node1', 0, 40, 10), T0);
	c.add(noGpu(record('node2', 0, 70)), T0);
	c.add(noGpu(record('node1', 1, 41)), T0 + 30_000);
	c.add(noGpu(record('node2', 1, 71)), T0 + 30_000);
	c.add(record('node1', 2, 42, 12), T0 + 60_000);
	const [one, two] = splitByHost(c.finish());
	const gpu = one!.series.metrics.find(m => m.id === 'gpu0')!;
	expect([...gpu.value]).toEqual([10, 12]);
	expect([...(gpu.record ?? [])]).toEqual([0, 2]);
	expect([...one!.series.time]).toEqual([T0, T0 + 30_000, T0 + 60_000]);
	expect(two!.series.metrics.map(m => m.id)).toEqual(['ram']);
	expect([...two!.series.metrics[0]!.peak]).toEqual([71, 72]);
});
