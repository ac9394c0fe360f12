import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, expect, test} from 'vitest';
import type {MetricStatus} from '../../src/core/types.js';
import {formatStatusLine} from '../../src/headless/format.js';
import {readAllRecords, type SkippedLine} from '../../src/memlog/reader.js';
import {RecordFields} from '../../src/memlog/record-fields.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {LineScanner} from '../../src/memlog/scan-line.js';
import {closeSessions, testSession} from '../helpers/session.js';
import {until} from '../helpers/until.js';

// Host CPU came into the memory log as one registry entry (src/metrics/cpu.ts) plus its reader (system/cpu.ts, real
// /proc in every session): a real session's recorder writes it into a real log file beside the keys the log always
// had, and the headless status line shows it, neither of them naming it.

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-cpu-log-'));
});
afterEach(closeSessions);
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

async function records(file: string): Promise<LogRecord[]> {
	const text = await readFile(file, 'utf8').catch(() => '');
	return text
		.split('\n')
		.filter(line => line.endsWith('}'))
		.map(line => JSON.parse(line) as LogRecord);
}

test('a real session logs cpu.{percent, peak_percent} and the status line shows it', async () => {
	const file = path.join(dir, 'traintop-memory.jsonl');
	const session = await testSession({
		settings: {log: true, logFile: file, logInterval: 0.6},
		selector: {kind: 'match', pattern: /^traintop-cpu-log-matches-nothing$/},
	});
	const lines: string[] = [];
	let metrics: Readonly<Record<string, MetricStatus>> = {};
	session.recorder.onRecord((record, snapshot) => {
		metrics = snapshot.metrics;
		lines.push(formatStatusLine(record, metrics));
	});
	// The first reading has no busy share yet (it needs two); every window after the first sample has one.
	await until(
		() => lines.length,
		n => n >= 2,
		'two records',
	);
	await session.close();
	const logged = await records(file);
	const last = logged.at(-1)!;
	expect(last.cpu).toBeDefined();
	const {percent, peak_percent: peak} = last.cpu!;
	expect(percent).not.toBeNull();
	expect(percent).toBeGreaterThanOrEqual(0);
	expect(percent).toBeLessThanOrEqual(100);
	expect(peak).toBeGreaterThanOrEqual(percent!);
	// An addition: the keys the record always had are there, in their order, and `cpu` among them.
	expect(Object.keys(last)).toEqual([
		'timestamp',
		'host',
		'interval_s',
		'samples',
		'memory',
		'swap',
		'cpu',
		'gpu',
		'gpus',
		'gpu_status',
		'gpu_message',
		'alerts',
		'slurm',
	]);
	expect(last.gpu_status).toBe('absent');
	expect(lines.at(-1)).toMatch(/ {2}ram \d+\.\d% ok.* {2}cpu \d+\.\d%.* {2}gpu absent$/);

	// `--analyze` reads such a log as it read the ones before: no line skipped, and the byte scanner (its fast path
	// for big logs) passes over the added key instead of leaving the line to JSON.parse.
	const skipped: SkippedLine[] = [];
	expect(await readAllRecords([file], skipped)).toHaveLength(logged.length);
	expect(skipped).toEqual([]);
	const scanner = new LineScanner();
	for (const line of (await readFile(file, 'utf8'))
		.trim()
		.split('\n')
		.filter(l => l.includes('"alerts":[]'))) {
		const buf = Buffer.from(line);
		expect(scanner.scan(buf, 0, buf.length, new RecordFields()), line).toBe(true);
	}
});
