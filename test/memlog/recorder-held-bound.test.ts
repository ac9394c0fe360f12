import {execFileSync} from 'node:child_process';
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, expect, test} from 'vitest';
import {MemoryLogRecorder} from '../../src/memlog/recorder.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {ramTicker} from '../helpers/log-records.js';

// The records kept while the disk is full are bounded: the newest 1000 are written once it has space again, and what
// was dropped before them is said, with its count and time span. A real 4 MiB tmpfs (1000 records fit once it is freed) (mounting needs root).

let mount: string | null = null;
const why: string[] = [];
beforeAll(() => {
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-held-bound-'));
	try {
		execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dir], {stdio: 'pipe'});
		mount = dir;
	} catch (error) {
		why.push(`cannot mount a tmpfs (${(error as Error).message.split('\n')[0]})`);
		rmSync(dir, {recursive: true, force: true});
	}
});
afterAll(() => {
	if (mount === null) return;
	execFileSync('umount', [mount]);
	rmSync(mount, {recursive: true, force: true});
});

function fill(filler: string): void {
	for (;;) {
		try {
			writeFileSync(filler, Buffer.alloc(65536, 0x78), {flag: 'a'});
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return;
			throw error;
		}
	}
}

test('a full spell longer than 1000 records drops the oldest and says which', {timeout: 60_000}, async context => {
	if (mount === null) return context.skip(why.join('; '));
	const log = path.join(mount, 'traintop-memory.jsonl');
	const filler = path.join(mount, 'filler');
	const recorder = new MemoryLogRecorder({logPath: log, logIntervalMs: 1000, sampleIntervalMs: 1000, gpuThreshold: 85});
	const records: LogRecord[] = [];
	const troubles: (string | null)[] = [];
	recorder.onRecord(record => records.push(record));
	recorder.trouble.subscribe(trouble => troubles.push(trouble));
	const tick = ramTicker();
	fill(filler);
	// 1005 records while full, then space again: the next record writes the 1000 newest of them, then itself.
	while (records.length < 1005) recorder.add(await tick(50));
	rmSync(filler);
	while (records.length < 1006) recorder.add(await tick(50));
	recorder.close();
	const dropped = records.slice(0, 5).map(r => r.timestamp);
	expect(troubles.at(-1)).toBe(
		`memory log ${log}: 5 records from ${dropped[0]} to ${dropped[4]} were dropped (the log could not be written for longer than 1000 records); the rest were written`,
	);
	const logged = readFileSync(log, 'utf8')
		.split('\n')
		.flatMap(line => {
			try {
				return [(JSON.parse(line) as LogRecord).timestamp];
			} catch {
				return [];
			}
		});
	expect(logged).toEqual(records.slice(5).map(r => r.timestamp));
});
