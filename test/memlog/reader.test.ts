import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {gzipSync} from 'node:zlib';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import {analyze} from '../../src/memlog/analyze.js';
import {
	readAllRecords,
	readSeries,
	resolveInputs,
	type LocatedRecord,
	type SkippedLine,
} from '../../src/memlog/reader.js';
import {SeriesCollector} from '../../src/memlog/series.js';
import type {LogRecord} from '../../src/memlog/record.js';

let dir: string;
let n = 0;

beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-reader-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

function ours(seq: number): LogRecord {
	return {
		timestamp: new Date(1_700_000_000_000 + seq * 30_000).toISOString(),
		host: `h-${seq}`,
		interval_s: 30,
		samples: 30,
		memory: {total_gb: 64, used_gb: 32, percent: 50, available_gb: 32, peak_percent: 55, peak_used_gb: 35.2},
		swap: {total_gb: 8, used_gb: 1, percent: 12.5, peak_percent: 13},
		gpu: {memory_allocated_gb: 20, memory_total_gb: 160, memory_percent: 12.5, peak_memory_percent: 14},
		gpus: [0, 1].map(index => ({
			index,
			uuid: `GPU-${index}`,
			name: 'NVIDIA H100',
			memory_used_gb: 10,
			memory_total_gb: 80,
			memory_percent: 12.5,
			peak_memory_percent: 14,
			utilization_percent: index === 0 ? 90 : null,
		})),
		gpu_status: 'ok',
		alerts: [{time: '2023-11-14T22:13:20.000Z', metric: 'ram', value: 91, threshold: 90, from: 'ok', to: 'warn'}],
	};
}

/** The seed tool's record: timestamp (local, no zone), memory, gpu. */
function seed(minute: number): object {
	return {
		timestamp: `2024-01-15T10:${String(minute).padStart(2, '0')}:00`,
		memory: {total_gb: 32.0, used_gb: 28.5, percent: 89.1},
		gpu: {memory_allocated_gb: 12.3, memory_total_gb: 16.0, memory_percent: 76.9},
	};
}

const pretty = (o: object): string => JSON.stringify(o, null, 2);
const SEED_LINES = pretty(seed(0)).split('\n').length;
const jsonl = (records: readonly object[]): string => records.map(r => `${JSON.stringify(r)}\n`).join('');

async function file(name: string, content: string | Buffer): Promise<string> {
	const p = path.join(dir, `${n++}-${name}`);
	await writeFile(p, content);
	return p;
}

async function read(files: string | readonly string[]): Promise<{records: LocatedRecord[]; skipped: SkippedLine[]}> {
	const skipped: SkippedLine[] = [];
	const records: LocatedRecord[] = [];
	records.push(...(await readAllRecords(typeof files === 'string' ? [files] : files, skipped)));
	return {records, skipped};
}

async function readError(f: string): Promise<unknown> {
	try {
		await read(f);
	} catch (error) {
		return error;
	}
	return undefined;
}

describe('formats', () => {
	test('JSON Lines in our full format: every field, line numbers, time; blank lines silently skipped', async () => {
		const f = await file('a.jsonl', `${jsonl([ours(0), ours(1)])}\n  \n${jsonl([ours(2)])}`);
		const {records, skipped} = await read(f);
		expect(skipped).toEqual([]);
		expect(records.map(r => r.line)).toEqual([1, 2, 5]);
		expect(records[0]?.record).toEqual(ours(0));
		expect(records[2]?.time).toBe(1_700_000_060_000);
		expect(records.every(r => r.file === f)).toBe(true);
	});

	test('CRLF line endings', async () => {
		const f = await file('crlf.jsonl', jsonl([ours(0), ours(1)]).replace(/\n/g, '\r\n'));
		const {records, skipped} = await read(f);
		expect(skipped).toEqual([]);
		expect(records.map(r => r.record.host)).toEqual(['h-0', 'h-1']);
	});

	test('seed records pretty-printed one after another, with no separator', async () => {
		const text = [seed(0), seed(1), seed(2)].map(pretty).join('');
		const f = await file('seed.txt', text);
		const {records, skipped} = await read(f);
		expect(skipped).toEqual([]);
		expect(records.map(r => r.record.timestamp)).toEqual([
			'2024-01-15T10:00:00',
			'2024-01-15T10:01:00',
			'2024-01-15T10:02:00',
		]);
		// Each pretty record is 13 lines; with no separator the next starts on the closing line.
		expect(SEED_LINES).toBe(13);
		expect(records.map(r => r.line)).toEqual([1, 13, 25]);
		expect(records[0]?.record.gpu?.memory_percent).toBe(76.9);
		expect(records[0]?.time).toBe(Date.parse('2024-01-15T10:00:00'));
	});

	test('seed records pretty-printed with newlines and blank lines between', async () => {
		const text = `${pretty(seed(0))}\n${pretty(seed(1))}\n\n\n${pretty(seed(2))}\n`;
		const f = await file('seed2.txt', text);
		const {records, skipped} = await read(f);
		expect(skipped).toEqual([]);
		expect(records.map(r => r.line)).toEqual([1, 14, 29]);
	});

	test('a JSON array of records, pretty and compact, including a huge single line', async () => {
		const pr = await file('arr.json', JSON.stringify([seed(0), ours(1), seed(2)], null, 2));
		const a = await read(pr);
		expect(a.skipped).toEqual([]);
		expect(a.records.map(r => r.line)).toEqual([2, 15, 15 + pretty(ours(1)).split('\n').length]);
		expect(a.records[1]?.record).toEqual(ours(1));

		const many = Array.from({length: 5000}, (_, i) => ours(i));
		const compact = await file('arr-compact.json', JSON.stringify(many));
		const b = await read(compact);
		expect(b.skipped).toEqual([]);
		expect(b.records).toHaveLength(5000);
		expect(b.records[4999]?.record.host).toBe('h-4999');
		expect(b.records.every(r => r.line === 1)).toBe(true);
	});

	test('.gz of JSON Lines and of pretty-printed records', async () => {
		const a = await read(await file('a.jsonl.gz', gzipSync(jsonl([ours(0), ours(1), ours(2)]))));
		expect(a.skipped).toEqual([]);
		expect(a.records.map(r => r.record.host)).toEqual(['h-0', 'h-1', 'h-2']);
		const b = await read(await file('b.txt.gz', gzipSync([seed(0), seed(1)].map(pretty).join('\n'))));
		expect(b.skipped).toEqual([]);
		expect(b.records.map(r => r.line)).toEqual([1, 14]);
	});

	test('a truncated .gz: the records before the cut, and a skip', async () => {
		const gz = gzipSync(jsonl(Array.from({length: 2000}, (_, i) => ours(i))));
		const {records, skipped} = await read(await file('cut.jsonl.gz', gz.subarray(0, gz.length - 100)));
		expect(records.length).toBeGreaterThan(0);
		expect(skipped.some(s => s.reason.startsWith('gzip:'))).toBe(true);
	});

	test('seed pretty records and our JSON lines mixed in one file', async () => {
		const text = `${pretty(seed(0))}\n${jsonl([ours(1), ours(2)])}${pretty(seed(3))}\n${jsonl([ours(4)])}`;
		const {records, skipped} = await read(await file('mixed.txt', text));
		expect(skipped).toEqual([]);
		expect(records.map(r => r.line)).toEqual([1, 14, 15, 16, 29]);
		expect(records[1]?.record).toEqual(ours(1));
		expect(records[3]?.record.host).toBeUndefined();
	});

	test('unknown extra fields are ignored', async () => {
		const {records, skipped} = await read(
			await file('extra.jsonl', `${JSON.stringify({...ours(0), future: {x: 1}})}\n`),
		);
		expect(skipped).toEqual([]);
		expect(records[0]?.record.host).toBe('h-0');
	});

	test('records the fast check rejects but the schema accepts are read', async () => {
		// gpus entries missing optional fields, and memory: null.
		const rec = {
			timestamp: '2024-01-01T00:00:00Z',
			memory: null,
			gpus: [{index: 0, memory_used_gb: null, memory_total_gb: null, memory_percent: null}],
		};
		const {records, skipped} = await read(await file('min.jsonl', `${JSON.stringify(rec)}\n`));
		expect(skipped).toEqual([]);
		expect(records[0]?.record.memory).toBeNull();
	});
});

describe('bad input', () => {
	test('a malformed line in the middle is skipped with its line number; later lines still read', async () => {
		const text = `${jsonl([ours(0)])}{"timestamp": oops}\n${jsonl([ours(2), ours(3)])}`;
		const {records, skipped} = await read(await file('mid.jsonl', text));
		expect(records.map(r => r.line)).toEqual([1, 3, 4]);
		expect(skipped).toHaveLength(1);
		expect(skipped[0]).toMatchObject({line: 2});
		expect(skipped[0]?.reason).toMatch(/^not JSON: /);
	});

	test('a line cut in the middle (mid-string, mid-object) does not swallow the next ones', async () => {
		const full = JSON.stringify(ours(1));
		const text =
			jsonl([ours(0)]) +
			full.slice(0, 40) +
			'\n' +
			jsonl([ours(2)]) +
			full.slice(0, full.indexOf('"gpus"') + 9) +
			'\n' +
			jsonl([ours(4)]);
		const {records, skipped} = await read(await file('cut.jsonl', text));
		expect(records.map(r => r.record.host)).toEqual(['h-0', 'h-2', 'h-4']);
		expect(skipped.map(s => s.line)).toEqual([2, 4]);
	});

	test('a truncated last line', async () => {
		const full = JSON.stringify(ours(1));
		const {records, skipped} = await read(await file('trunc.jsonl', jsonl([ours(0)]) + full.slice(0, 100)));
		expect(records).toHaveLength(1);
		expect(skipped).toEqual([{file: expect.any(String), line: 2, reason: 'truncated at end of file'}]);
	});

	test('a truncated last pretty object', async () => {
		const text = `${pretty(seed(0))}\n${pretty(seed(1)).slice(0, 60)}`;
		const {records, skipped} = await read(await file('trunc.txt', text));
		expect(records).toHaveLength(1);
		expect(skipped).toEqual([{file: expect.any(String), line: 14, reason: 'truncated at end of file'}]);
	});

	test('a record failing the schema: "percent": "abc", no timestamp, a bad date; non-object JSON', async () => {
		const bad = {...seed(0), memory: {total_gb: 32, used_gb: 1, percent: 'abc'}};
		const {timestamp: _t, ...noTs} = seed(1) as {timestamp: string};
		const lines = [
			JSON.stringify(bad),
			JSON.stringify(noTs),
			JSON.stringify({...seed(2), timestamp: 'yesterday'}),
			'42',
			'[1,2]',
			'garbage here',
			JSON.stringify(seed(3)),
		];
		const {records, skipped} = await read(await file('schema.jsonl', `${lines.join('\n')}\n`));
		expect(records.map(r => r.line)).toEqual([7]);
		expect(skipped.map(s => [s.line, s.reason])).toEqual([
			[1, 'memory.percent: expected number'],
			[2, 'timestamp: missing'],
			[3, 'timestamp: not a date'],
			[4, 'not an object: number'],
			[5, 'not an object: array'],
			[6, expect.stringMatching(/^not JSON: /)],
		]);
	});

	test('a number that overflows to Infinity (1.5e323 with its minus sign lost) fails the record, as zod says', async () => {
		const good = JSON.stringify(ours(0));
		const overflow = good.replace('"percent":50', '"percent":1.5e323');
		const inGpus = good.replace(
			'"memory_percent":12.5,"peak_memory_percent":14,"utilization_percent":90',
			'"memory_percent":-1e999,"peak_memory_percent":14,"utilization_percent":90',
		);
		expect(overflow).not.toBe(good);
		expect(inGpus).not.toBe(good);
		const {records, skipped} = await read(await file('inf.jsonl', `${[overflow, inGpus, good].join('\n')}\n`));
		expect(records.map(r => r.line)).toEqual([3]);
		expect(skipped.map(s => s.line)).toEqual([1, 2]);
		expect(skipped[0]?.reason).toMatch(/^memory\.percent: /);
		expect(skipped[1]?.reason).toMatch(/^gpus\.0\.memory_percent: /);
	});

	test('an empty file and a file of garbage: UsageError naming it', async () => {
		const empty = await file('empty.jsonl', '');
		const e1 = await readError(empty);
		expect(e1).toBeInstanceOf(UsageError);
		expect((e1 as Error).message).toContain(empty);
		const junk = await file('junk.jsonl', 'hello\nworld {\n');
		const skipped: SkippedLine[] = [];
		const e2 = await (async () => {
			try {
				await readAllRecords([junk], skipped);
			} catch (error) {
				return error;
			}
			return undefined;
		})();
		expect(e2).toBeInstanceOf(UsageError);
		expect((e2 as Error).message).toContain(junk);
		expect(skipped.length).toBeGreaterThan(0);
	});

	test('several files are read in order; an unreadable one is a UsageError', async () => {
		const a = await file('1.jsonl', jsonl([ours(0)]));
		const b = await file('2.txt', pretty(seed(1)));
		const {records} = await read([a, b]);
		expect(records.map(r => r.file)).toEqual([a, b]);
		await expect(read(path.join(dir, 'nope.jsonl'))).rejects.toBeInstanceOf(UsageError);
	});
});

describe('readSeries (the --analyze path) against the object path', () => {
	test('the same analysis from a log mixing our records, seed records, alerts, restarts and bad lines', async () => {
		const lines: string[] = [];
		for (let i = 0; i < 3000; i++) {
			const r = ours(i);
			const over = {
				host: i < 2000 ? 'node-a' : 'node-b',
				interval_s: i % 500 === 7 ? 15 : 30,
				memory: {...r.memory!, percent: 40 + (i % 97) / 3, peak_percent: 41 + (i % 89) / 3, used_gb: 20 + i / 100},
				gpus: r.gpus.map(g => ({...g, memory_percent: (i * 7 + g.index) % 100})),
				alerts: i % 400 === 0 ? r.alerts : [],
			};
			lines.push(JSON.stringify({...r, ...over}));
			if (i % 700 === 3) lines.push(pretty(seed(i % 60)));
			if (i % 900 === 5) lines.push('{"timestamp": "2026-01-01T00:00:00.000Z", "memory": {"percent": "abc"}}');
		}
		lines.push(JSON.stringify(ours(5))); // time goes back: a restart, and sorting
		const f = await file('mixed-big.jsonl', `${lines.join('\n')}\n`);

		const viaScanner: SkippedLine[] = [];
		const series = await readSeries([f], viaScanner);
		const viaObjects: SkippedLine[] = [];
		const collector = new SeriesCollector();
		for (const r of await readAllRecords([f], viaObjects)) collector.add(r.record, r.time);
		const reference = collector.finish();

		expect(viaScanner).toEqual(viaObjects);
		expect(viaScanner).toHaveLength(4);
		expect(series.records).toBe(reference.records);
		expect(series.sorted).toBe(true);
		const thresholds = {
			ram: {critical: 85, warnMargin: 10, hysteresis: 2},
			swap: {critical: 50, warnMargin: 10, hysteresis: 2},
			gpu: {critical: 90, warnMargin: 10, hysteresis: 2},
		};
		expect(analyze(series, thresholds)).toEqual(analyze(reference, thresholds));
		expect(series.metrics.map(m => m.id)).toEqual(['ram', 'swap', 'gpu', 'gpu0', 'gpu1']);
	});
});

describe('resolveInputs', () => {
	test('a run dir resolves to its traintop-memory*.jsonl* files, sorted', async () => {
		const run = path.join(dir, 'run1');
		await mkdir(run);
		for (const name of [
			'traintop-memory.jsonl.1.gz',
			'traintop-memory.jsonl',
			'other.jsonl',
			'traintop-memory-rank1.jsonl',
		]) {
			await writeFile(path.join(run, name), jsonl([ours(0)]));
		}
		expect(await resolveInputs([run])).toEqual(
			['traintop-memory-rank1.jsonl', 'traintop-memory.jsonl', 'traintop-memory.jsonl.1.gz'].map(x =>
				path.join(run, x),
			),
		);
		const emptyRun = path.join(dir, 'run-empty');
		await mkdir(emptyRun);
		await expect(resolveInputs([emptyRun])).rejects.toThrow(emptyRun);
	});

	test('a glob in the last segment; files as given; duplicates once', async () => {
		const g = path.join(dir, 'glob');
		await mkdir(g);
		for (const name of ['a1.jsonl', 'a2.jsonl', 'b1.jsonl', 'a10.txt']) await writeFile(path.join(g, name), '');
		expect(await resolveInputs([path.join(g, 'a?.jsonl')])).toEqual([
			path.join(g, 'a1.jsonl'),
			path.join(g, 'a2.jsonl'),
		]);
		expect(await resolveInputs([path.join(g, 'b1.jsonl'), path.join(g, '*.jsonl')])).toEqual(
			['b1.jsonl', 'a1.jsonl', 'a2.jsonl'].map(x => path.join(g, x)),
		);
		await expect(resolveInputs([path.join(g, 'z*.jsonl')])).rejects.toThrow(/z\*\.jsonl: matches no file/);
	});

	test('a missing path is a UsageError naming it', async () => {
		const missing = path.join(dir, 'does-not-exist.jsonl');
		const error = await resolveInputs([missing]).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(UsageError);
		expect((error as Error).message).toContain(missing);
	});
});
