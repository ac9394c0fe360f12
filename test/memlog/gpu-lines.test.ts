import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, test} from 'vitest';
import type {AnalysisThresholds, MetricAnalysis} from '../../src/memlog/analyze.js';
import {analyzeLog, type LogAnalysis} from '../../src/memlog/analyze-log.js';
import type {GpuLineOptions} from '../../src/memlog/gpu-lines.js';
import {readAllRecords, readSeries, type SkippedLine} from '../../src/memlog/reader.js';
import type {GpuRecord, LogRecord} from '../../src/memlog/record.js';
import {logJson} from '../../src/memlog/report-json.js';
import {formatLogReport} from '../../src/memlog/report-hosts.js';
import {SeriesCollector} from '../../src/memlog/series.js';
import {closeSessions, testSession} from '../helpers/session.js';
import {gpu, ScriptedSources} from '../helpers/snapshots.js';

// A GPU judged live by its own line (--gpu-thresholds, a cluster.yaml reserve factor) carries that line in the memory
// log (`gpus[].threshold`, only where it differs from --gpu-threshold), and --analyze judges the GPU by it, record
// by record: a unified-memory GPU at 70 % under a 60 % line is a breach, a GPU at 88 % under its own 95 % is not.
// `--gpu-thresholds` given to --analyze wins over the log; a log without the field is judged as it always was.

const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});
/** The global GPU line at 85: a GPU at 88 % without a line of its own is above it. */
const thresholds: AnalysisThresholds = {ram: rule(85), swap: rule(50), gpu: rule(85)};
const T0 = Date.parse('2026-11-24T10:00:00Z');

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-gpu-lines-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});
afterEach(closeSessions);

/** A GPU entry as the writer writes it, with `threshold` where given. */
function device(index: number, percent: number, threshold?: number): GpuRecord {
	return {
		index,
		uuid: `GPU-${index}`,
		name: 'NVIDIA GB10',
		memory_used_gb: percent,
		memory_total_gb: 100,
		memory_percent: percent,
		peak_memory_percent: percent,
		utilization_percent: 90,
		...(threshold === undefined ? {} : {threshold}),
	};
}

/** One record every 30 s from T0 on `host`, holding these GPUs. */
function record(i: number, gpus: GpuRecord[], host = 'node-a'): LogRecord {
	return {
		timestamp: new Date(T0 + i * 30_000).toISOString(),
		host,
		interval_s: 30,
		samples: 30,
		memory: {total_gb: 64, used_gb: 12.8, percent: 20, available_gb: 51.2, peak_percent: 20, peak_used_gb: 12.8},
		swap: null,
		gpu: null,
		gpus,
		gpu_status: 'ok',
		alerts: [],
	};
}

async function logFile(name: string, records: readonly LogRecord[]): Promise<string> {
	const file = path.join(dir, name);
	await writeFile(file, `${records.map(r => JSON.stringify(r)).join('\n')}\n`);
	return file;
}

/**
 * The log's analysis, read the fast way (the byte scanner) and the slow way (JSON.parse and the schema), which must
 * agree: the field is read on both paths, not only on one.
 */
async function analyseBothWays(file: string, gpuLines: GpuLineOptions = {}): Promise<LogAnalysis> {
	const skipped: SkippedLine[] = [];
	const fast = analyzeLog(await readSeries([file], skipped), thresholds, {gpuLines});
	const collector = new SeriesCollector();
	for (const r of await readAllRecords([file], skipped)) collector.add(r.record, r.time);
	const slow = analyzeLog(collector.finish(), thresholds, {gpuLines});
	expect(skipped).toEqual([]);
	expect(logJson(fast, {skipped: []})).toEqual(logJson(slow, {skipped: []}));
	return fast;
}

function metric(log: LogAnalysis, id: string, host?: string): MetricAnalysis {
	const h = host === undefined ? log.hosts[0] : log.hosts.find(x => x.host === host);
	const found = h?.analysis.metrics.find(m => m.id === id);
	if (!found) throw new Error(`no ${id} on ${host ?? 'the only host'}`);
	return found;
}

describe('--analyze judges each GPU by its line in the log', () => {
	test('70 % under a recorded 60 %: above the line for that GPU only; 88 % under a recorded 95 %: never', async () => {
		// GPU 0: unified memory, 60 % line. GPU 1: its own 95 % line. GPU 2: no line, the global 85 %.
		const file = await logFile(
			'lines.jsonl',
			Array.from({length: 6}, (_, i) => record(i, [device(0, 70, 60), device(1, 88, 95), device(2, 70)])),
		);
		const log = await analyseBothWays(file);
		const [unified, own, plain] = [metric(log, 'gpu0'), metric(log, 'gpu1'), metric(log, 'gpu2')];
		// Above in all 6 records: the 2 m 30 s of data (the first record's window lies before it).
		expect(unified).toMatchObject({threshold: 60, threshold_source: 'log', time_above_threshold_s: 150});
		expect(unified.episodes).toHaveLength(1);
		expect(unified.episodes[0]).toMatchObject({start: '2026-11-24T10:00:00.000Z', end: '2026-11-24T10:02:30.000Z'});
		expect(own).toMatchObject({threshold: 95, threshold_source: 'log', time_above_threshold_s: 0, episodes: []});
		expect(plain).toMatchObject({threshold: 85, threshold_source: 'global', time_above_threshold_s: 0, episodes: []});
		expect(log.breached).toBe(true);

		const json = logJson(log, {skipped: []});
		expect(json.metrics.gpu0).toMatchObject({threshold: 60, threshold_from: 'log'});
		expect(json.metrics.gpu1).toMatchObject({threshold: 95, threshold_from: 'log'});
		// Judged by `thresholds` throughout: the JSON such a GPU always had.
		expect(json.metrics.gpu2).not.toHaveProperty('threshold');
		expect(json.metrics.gpu2).not.toHaveProperty('threshold_from');

		const text = formatLogReport(log, {format: 'text', width: 120});
		expect(text).toContain("  threshold 60 % from this GPU's own line in the log, not the global 85 %");
		expect(text).toContain("  threshold 95 % from this GPU's own line in the log, not the global 85 %");
		expect(text).toMatch(/GPU 2 NVIDIA GB10 \(GPU-2\) {2}\(threshold 85 %, 6 samples\)\n {2}min/);
		const markdown = formatLogReport(log, {format: 'markdown'});
		expect(markdown).toContain("| GPU 0 NVIDIA GB10 (GPU-0) | 60 (log's per-GPU line) |");
		expect(markdown).toContain('| GPU 2 NVIDIA GB10 (GPU-2) | 85 |');
	});

	test('a log without the field (an older traintop): every GPU against the global line, as before', async () => {
		const file = await logFile(
			'old.jsonl',
			Array.from({length: 4}, (_, i) => record(i, [device(0, 70), device(1, 88)])),
		);
		const log = await analyseBothWays(file);
		expect(metric(log, 'gpu0')).toMatchObject({threshold: 85, threshold_source: 'global', episodes: []});
		expect(metric(log, 'gpu1')).toMatchObject({threshold: 85, threshold_source: 'global', time_above_threshold_s: 90});
		expect(metric(log, 'gpu1').episodes).toHaveLength(1);
		expect(formatLogReport(log, {format: 'text', width: 120})).not.toContain('from ');
	});

	test('--gpu-thresholds given to --analyze wins over the log for its GPU; the others keep their lines', async () => {
		const file = await logFile(
			'override.jsonl',
			Array.from({length: 4}, (_, i) => record(i, [device(0, 70, 60), device(1, 88, 95)])),
		);
		const log = await analyseBothWays(file, {byUuid: new Map([['GPU-0', 75]])});
		expect(metric(log, 'gpu0')).toMatchObject({threshold: 75, threshold_source: 'flag', episodes: []});
		expect(metric(log, 'gpu1')).toMatchObject({threshold: 95, threshold_source: 'log', episodes: []});
		expect(log.breached).toBe(false);
		expect(logJson(log, {skipped: []}).metrics.gpu0).toMatchObject({threshold: 75, threshold_from: 'flag'});
		expect(formatLogReport(log, {format: 'text', width: 120})).toContain(
			'  threshold 75 % from --gpu-thresholds, not the global 85 %',
		);
	});

	test('as of each record: a line that came in mid-log judges only the records that carry it', async () => {
		// Records 0–3 from a traintop without per-GPU lines (88 % against the global 85: above), 4–7 with a 95 % line.
		const file = await logFile(
			'changed.jsonl',
			Array.from({length: 8}, (_, i) => record(i, [device(0, 88, i < 4 ? undefined : 95)])),
		);
		const log = await analyseBothWays(file);
		const gpu0 = metric(log, 'gpu0');
		expect(gpu0).toMatchObject({threshold: 95, threshold_source: 'log', threshold_min: 85, threshold_max: 95});
		// Records 0–3 above: 1 m 30 s from the first record on.
		expect(gpu0.time_above_threshold_s).toBe(90);
		expect(gpu0.episodes).toHaveLength(1);
		expect(gpu0.episodes[0]?.end).toBe('2026-11-24T10:01:30.000Z');
		expect(logJson(log, {skipped: []}).metrics.gpu0).toMatchObject({threshold_range: [85, 95]});
		const text = formatLogReport(log, {format: 'text'});
		expect(text).toContain("  threshold 95 % from this GPU's own line in the log, not the global 85 %\n");
		expect(text).toContain('  its line changed: 85–95 % along the log\n');
		expect(formatLogReport(log, {format: 'markdown'})).toContain("| 95 (log's per-GPU line, 85–95 % along the log) |");
	});

	test("several hosts in one log: each host's GPU 0 by that host's own line", async () => {
		const records = Array.from({length: 4}, (_, i) => [
			record(i, [device(0, 70, 60)], 'node-a'),
			record(i, [device(0, 70)], 'node-b'),
		]).flat();
		const log = await analyseBothWays(await logFile('hosts.jsonl', records));
		expect(metric(log, 'gpu0', 'node-a')).toMatchObject({threshold: 60, threshold_source: 'log'});
		expect(metric(log, 'gpu0', 'node-a').episodes).toHaveLength(1);
		expect(metric(log, 'gpu0', 'node-b')).toMatchObject({threshold: 85, threshold_source: 'global', episodes: []});
		// Worst first: the host over its line.
		expect(log.hosts.map(h => h.host)).toEqual(['node-a', 'node-b']);
		expect(logJson(log, {skipped: []}).hosts?.['node-a']?.breached).toBe(true);
		expect(logJson(log, {skipped: []}).hosts?.['node-b']?.breached).toBe(false);
	});
});

describe('the recorder writes each GPU its own line', () => {
	test('through a real session: --gpu-thresholds GPU-0=60 gives GPU 0 `threshold: 60`, GPU 1 nothing', async () => {
		const file = path.join(dir, 'session.jsonl');
		const sources = new ScriptedSources();
		sources.setGpus(gpu(0, 70), gpu(1, 70));
		const session = await testSession({
			selector: {kind: 'match', pattern: /traintop-no-such-job-[0-9a-f]{32}/},
			sources,
			settings: {
				log: true,
				logFile: file,
				logInterval: 0.4,
				gpuThreshold: 90,
				gpuThresholds: new Map([['GPU-0', 60]]),
			},
		});
		const records: LogRecord[] = [];
		await new Promise<void>(resolve => {
			session.recorder.onRecord(r => {
				if (records.push(r) === 3) resolve();
			});
		});
		await closeSessions();
		const lines = (await readFile(file, 'utf8')).trim().split('\n');
		expect(lines.length).toBeGreaterThanOrEqual(3);
		for (const line of lines) {
			const {gpus} = JSON.parse(line) as LogRecord;
			expect(gpus.map(g => [g.index, g.threshold])).toEqual([
				[0, 60],
				[1, undefined],
			]);
			// Only where a line differs: GPU 1's entry has no such key at all.
			expect(Object.keys(gpus[1]!)).not.toContain('threshold');
		}
		const log = await analyseBothWays(file);
		expect(metric(log, 'gpu0')).toMatchObject({threshold: 60, threshold_source: 'log'});
		expect(metric(log, 'gpu0').episodes).toHaveLength(1);
		expect(metric(log, 'gpu1')).toMatchObject({threshold: 85, episodes: []});
	});

	test('no GPU with a line of its own: no `threshold` in the log (its size is what it was)', async () => {
		const file = path.join(dir, 'session-plain.jsonl');
		const sources = new ScriptedSources();
		sources.setGpus(gpu(0, 70), gpu(1, 70));
		// A --gpu-thresholds entry equal to the global line is no line of its own.
		const session = await testSession({
			selector: {kind: 'match', pattern: /traintop-no-such-job-[0-9a-f]{32}/},
			sources,
			settings: {log: true, logFile: file, logInterval: 0.4, gpuThreshold: 90, gpuThresholds: new Map([['GPU-1', 90]])},
		});
		await new Promise<void>(resolve => {
			let count = 0;
			session.recorder.onRecord(() => {
				if (++count === 2) resolve();
			});
		});
		await closeSessions();
		const text = await readFile(file, 'utf8');
		expect(text.trim().split('\n').length).toBeGreaterThanOrEqual(2);
		expect(text).not.toContain('"threshold"');
	});
});
