import {mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, expect, test} from 'vitest';
import {MemoryLogRecorder} from '../../src/memlog/recorder.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {ramTicker} from '../helpers/log-records.js';

// The run dir that holds the memory log is deleted (and made again) while traintop runs: the log must follow the
// path, not the deleted inode, and say so once.

const base = mkdtempSync(path.join(tmpdir(), 'traintop-recorder-replaced-'));
afterAll(() => rmSync(base, {recursive: true, force: true}));

const percents = (file: string): number[] =>
	readFileSync(file, 'utf8')
		.trim()
		.split('\n')
		.map(line => (JSON.parse(line) as LogRecord).memory!.percent);

/** A recorder writing a record a second to `file`. */
const recorderAt = (file: string): MemoryLogRecorder =>
	new MemoryLogRecorder({logPath: file, logIntervalMs: 1000, sampleIntervalMs: 1000, gpuThreshold: 85});

test('a run dir deleted and made again: the log is reopened in the new dir, and that is said', async () => {
	const run = path.join(base, 'run');
	mkdirSync(run);
	const file = path.join(run, 'traintop-memory.jsonl');
	const recorder = recorderAt(file);
	const troubles: (string | null)[] = [];
	recorder.trouble.subscribe(t => troubles.push(t));
	const tick = ramTicker();
	recorder.add(await tick(10));
	recorder.add(await tick(11));
	rmSync(run, {recursive: true});
	mkdirSync(run);
	recorder.add(await tick(12));
	recorder.add(await tick(13));
	recorder.close();
	// The new file holds what came after the deletion; nothing went to the deleted inode.
	expect(percents(file)).toEqual([12, 13]);
	expect(troubles[0]).toBe(
		`memory log ${file} was deleted or replaced (its run dir made again?): writing a new one there`,
	);
	expect(troubles.at(-1)).toBeNull();
});

test('a run dir deleted and not yet made again: records are held, and written once it is back', async () => {
	const run = path.join(base, 'run2');
	mkdirSync(run);
	const file = path.join(run, 'traintop-memory.jsonl');
	const recorder = recorderAt(file);
	const tick = ramTicker();
	recorder.add(await tick(20));
	rmSync(run, {recursive: true});
	recorder.add(await tick(21));
	recorder.add(await tick(22));
	expect(recorder.trouble.get()).toBe(`${run} does not exist yet: the memory log starts there once it does`);
	mkdirSync(run);
	recorder.add(await tick(23));
	recorder.close();
	expect(percents(file)).toEqual([21, 22, 23]);
	expect(recorder.trouble.get()).toBeNull();
});
