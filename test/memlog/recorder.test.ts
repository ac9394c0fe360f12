import {mkdtemp, readFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, expect, test} from 'vitest';
import {MemoryLogRecorder} from '../../src/memlog/recorder.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {ramTicker} from '../helpers/log-records.js';

// The memory log shared by headless and the TUI: one record per log interval, and a disk that
// refuses the write (here the kernel's /dev/full: every write(2) fails with ENOSPC) reported once
// while monitoring goes on.

let dir: string;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-recorder-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

test('a record per log interval in the file, and the window flushed at close', async () => {
	const file = path.join(dir, 'traintop-memory.jsonl');
	const records: LogRecord[] = [];
	const recorder = new MemoryLogRecorder({
		logPath: file,
		logIntervalMs: 5000,
		sampleIntervalMs: 1000,
		gpuThreshold: 85,
	});
	recorder.onRecord(r => records.push(r));
	const tick = ramTicker();
	for (let i = 0; i < 12; i++) recorder.add(await tick(40 + i));
	recorder.close();
	const lines = (await readFile(file, 'utf8')).trim().split('\n');
	expect(lines).toHaveLength(records.length);
	expect(records).toHaveLength(3);
	// What the file holds is what onRecord was given; on a rising ramp each window's peak is its last value.
	const second = JSON.parse(lines[1]!) as LogRecord;
	expect(second).toEqual(JSON.parse(JSON.stringify(records[1])));
	expect(second.memory?.peak_percent).toBe(second.memory?.percent);
	expect(second.memory!.percent).toBeGreaterThan(records[0]!.memory!.percent);
	expect(recorder.path).toBe(file);
});

test('a full disk (/dev/full): reported once with the path and the error, and records still flow', async () => {
	const troubles: (string | null)[] = [];
	const records: LogRecord[] = [];
	const recorder = new MemoryLogRecorder({
		logPath: '/dev/full',
		logIntervalMs: 2000,
		sampleIntervalMs: 1000,
		gpuThreshold: 85,
	});
	recorder.onRecord(r => records.push(r));
	recorder.trouble.subscribe(message => troubles.push(message));
	const tick = ramTicker();
	for (let i = 0; i < 8; i++) recorder.add(await tick(50));
	recorder.close();
	expect(records.length).toBeGreaterThanOrEqual(4);
	expect(troubles).toHaveLength(1);
	expect(troubles[0]).toMatch(
		/^cannot append to \/dev\/full: .*ENOSPC.*; still monitoring, records are kept \(up to 1000\) and written when it can be appended to again$/,
	);
	// The trouble is state a view reads at any time, not only an event it must have caught.
	expect(recorder.trouble.get()).toBe(troubles[0]);
});
