import {describe, expect, test} from 'vitest';
import type {AnalysisThresholds} from '../../src/memlog/analyze.js';
import {analyzeLog} from '../../src/memlog/analyze-log.js';
import type {ReadLogRecord} from '../../src/memlog/record.js';
import {formatReport} from '../../src/memlog/report.js';
import {formatLogReport} from '../../src/memlog/report-hosts.js';
import {analysisJson, logJson} from '../../src/memlog/report-json.js';
import {SeriesCollector} from '../../src/memlog/series.js';

// The report of a log of several hosts: a table of hosts worst first, each host's own report, host columns in the
// Markdown, and the JSON's `hosts` object beside top-level fields that speak for the whole log.

const T0 = Date.parse('2026-11-22T10:00:00Z');
const rule = (critical: number) => ({critical, warnMargin: 10, hysteresis: 2});
const thresholds: AnalysisThresholds = {ram: rule(85), swap: rule(50), gpu: rule(90)};
const iso = (ms: number) => new Date(ms).toISOString();
const LONG = 'a-very-long-host-name.cluster.example.org';

const ram = (host: string, percent: number, extra: Partial<ReadLogRecord> = {}): ReadLogRecord => ({
	timestamp: 'unused',
	interval_s: 30,
	host,
	memory: {total_gb: 100, used_gb: percent, percent},
	...extra,
});

/**
 * 20 records 30 s apart per host: node-a at 40 % RAM with a GPU at 95 % for records 5–6 (one GPU episode) and a
 * 10-minute gap; node-b at 50 % but 90 % for records 10–11 (one RAM episode) and requeued at record 15; LONG at 30 %.
 */
function threeHosts() {
	const c = new SeriesCollector();
	for (let i = 0; i < 20; i++) {
		const t = T0 + i * 30_000;
		const gpus = [{index: 0, memory_used_gb: 1, memory_total_gb: 80, memory_percent: i === 5 || i === 6 ? 95 : 20}];
		if (i < 8) c.add(ram('node-a', 40, {gpus}), t);
		c.add(ram('node-b', i === 10 || i === 11 ? 90 : 50, {slurm: {job_id: '5', restart_count: i < 15 ? 0 : 1}}), t);
		c.add(ram(LONG, 30), t);
	}
	for (let i = 28; i < 30; i++) c.add(ram('node-a', 40), T0 + i * 30_000);
	return analyzeLog(c.finish(), thresholds);
}

const width = (line: string) => [...line].length;

describe('text', () => {
	test('a table of hosts worst first, then each host as a log of one host reads; 80 columns', () => {
		const text = formatLogReport(threeHosts(), {format: 'text', files: ['a', 'b', 'c'], skipped: 0});
		const lines = text.split('\n');
		for (const line of lines) expect(width(line)).toBeLessThanOrEqual(80);
		expect(lines.slice(0, 5)).toEqual([
			'traintop memory report',
			'Records  50 from 3 files, 0 lines skipped',
			'Span     2026-11-22 10:00:00 → 2026-11-22 10:14:30 UTC (14 m 30 s)',
			'Hosts    3, worst first (peaks in %; breaches: episodes above a threshold)',
			'Verdict  BREACHED on 2 of 3 hosts: node-b, node-a',
		]);
		// node-b's RAM at 90 / 85 is worse than node-a's GPU at 95 / 90.
		const table = lines.slice(lines.indexOf('') + 1, lines.indexOf('') + 5);
		expect(table[0]).toMatch(/^Host +Records +Span +RAM % +Swap % +GPU % +Breaches +Restarts$/);
		expect(table[1]).toMatch(/^node-b +20 +9 m 30 s +90\.0 +– +– +1 +1$/);
		expect(table[2]).toMatch(/^node-a +10 +14 m 30 s +40\.0 +– +95\.0 +1 +0$/);
		// A long name is cut to leave the figures whole.
		expect(table[3]).toMatch(/^a-very-long-host-… +20 +9 m 30 s +30\.0 +– +– +0 +0$/);
		const sections = lines.filter(l => l.startsWith('━━ '));
		expect(sections.map(l => l.split(' ')[1])).toEqual(['node-b', 'node-a', LONG]);
		const nodeA = text.split('━━ node-a ')[1]!.split('━━ ')[0]!;
		expect(nodeA).toContain('Records  10\n');
		expect(nodeA).toContain('Verdict  BREACHED: a metric reached its threshold');
		expect(nodeA).toContain('GPU 0  (threshold 90 %, 8 samples)');
		expect(nodeA).toContain('Gaps: 1\n  2026-11-22 10:03:30 → 2026-11-22 10:14:00  10 m 30 s');
		expect(nodeA).toContain('Restarts: none');
		const nodeB = text.split('━━ node-b ')[1]!.split('━━ ')[0]!;
		expect(nodeB).toContain('Restarts: 1\n  2026-11-22 10:07:30  requeued: SLURM job 5 restart 0 → 1');
	});

	test('nothing breached: said for every host', () => {
		const c = new SeriesCollector();
		c.add(ram('a', 10), T0);
		c.add(ram('b', 20), T0);
		expect(formatLogReport(analyzeLog(c.finish(), thresholds), {format: 'text'})).toContain(
			'Verdict  no threshold reached on any host',
		);
	});

	test('one host: exactly the report of a log of one host', () => {
		const log = analyzeLog(threeHosts().hosts[0]!.series, thresholds);
		for (const format of ['text', 'markdown'] as const) {
			expect(formatLogReport(log, {format, files: ['x']})).toBe(
				formatReport(log.hosts[0]!.analysis, {format, files: ['x']}),
			);
		}
	});
});

describe('markdown', () => {
	test('a hosts table, and a Host column in every table', () => {
		const md = formatLogReport(threeHosts(), {format: 'markdown', files: ['a'], skipped: 2});
		const lines = md.split('\n');
		expect(lines).toContain('| Records | 50 |');
		expect(lines).toContain('| Hosts | 3 |');
		expect(lines).toContain('| Breached | yes, on 2 of 3 hosts: node-b, node-a |');
		expect(lines).toContain(
			'| Host | Records | First | Last | RAM max % | Swap max % | GPU max % | Breaches | Restarts |',
		);
		expect(lines).toContain(
			'| node-b | 20 | 2026-11-22T10:00:00.000Z | 2026-11-22T10:09:30.000Z | 90.0 | – | – | 1 | 1 |',
		);
		expect(lines).toContain(
			'| Host | Metric | Threshold % | Min | Mean | p50 | p95 | Max | Above threshold | Episodes | Trend |',
		);
		expect(lines).toContain(
			'| node-a | GPU 0 | 2026-11-22T10:02:00.000Z | 2026-11-22T10:03:00.000Z | 1 m 00 s | 95.0 |',
		);
		expect(lines).toContain('| node-a | 2026-11-22T10:03:30.000Z | 2026-11-22T10:14:00.000Z | 10 m 30 s |');
		expect(lines).toContain('| node-b | 2026-11-22T10:07:30.000Z | requeue | requeued: SLURM job 5 restart 0 → 1 |');
		// Every row has its header's number of cells.
		let cells = 0;
		for (const line of lines) {
			if (!line.startsWith('|')) {
				cells = 0;
				continue;
			}
			const n = line.split(' | ').length;
			if (cells === 0) cells = n;
			expect(n, line).toBe(cells);
		}
	});
});

describe('json', () => {
	test("hosts: each host's fields, worst first; top level: the whole log, metrics of the host where each peaked", () => {
		const log = threeHosts();
		const json = logJson(log, {skipped: []});
		expect(Object.keys(json.hosts ?? {})).toEqual(['node-b', 'node-a', LONG]);
		for (const [host, own] of Object.entries(json.hosts!)) {
			const analysis = log.hosts.find(h => h.host === host)!.analysis;
			const {thresholds: _t, skipped: _s, ...alone} = analysisJson(analysis, {skipped: []});
			// A host's part is what its log alone would print, less the whole log's fields, with its name on restarts.
			expect(own).toEqual({...alone, restarts: alone.restarts.map(r => ({...r, host}))});
		}
		expect(json).toMatchObject({
			records: 50,
			first: iso(T0),
			last: iso(T0 + 29 * 30_000),
			breached: true,
			thresholds: {
				ram: {critical: 85, warn_margin: 10, hysteresis: 2},
				swap: {critical: 50, warn_margin: 10, hysteresis: 2},
				gpu: {critical: 90, warn_margin: 10, hysteresis: 2},
			},
			skipped: [],
			gaps: [{start: iso(T0 + 7 * 30_000), end: iso(T0 + 28 * 30_000), host: 'node-a'}],
			restarts: [{time: iso(T0 + 15 * 30_000), reason: 'requeue', host: 'node-b', job_id: '5', restart_count: 1}],
		});
		expect(Object.keys(json.metrics)).toEqual(['ram', 'gpu0']);
		expect(json.metrics.ram).toMatchObject({max: 90, host: 'node-b', episodes: [{peak: 90}]});
		expect(json.metrics.gpu0).toMatchObject({max: 95, host: 'node-a'});
		expect(JSON.parse(JSON.stringify(json))).toEqual(json);
	});

	test('one host: the shape a log of one host always had (no hosts, no host on metrics)', () => {
		const log = analyzeLog(threeHosts().hosts[0]!.series, thresholds);
		const json = logJson(log, {skipped: []});
		expect(json).toEqual(analysisJson(log.hosts[0]!.analysis, {skipped: []}));
		expect(json.hosts).toBeUndefined();
		expect(json.metrics.ram?.host).toBeUndefined();
		expect(json.restarts.map(r => r.host)).toEqual([null]);
	});
});
