import {readFileSync, rmSync} from 'node:fs';
import path from 'node:path';
import {expect, test} from 'vitest';
import {MemoryLogRecorder} from '../../src/memlog/recorder.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {ramTicker} from '../helpers/log-records.js';
import {fillUntilFull, smallTmpfsForThisFile} from '../helpers/small-tmpfs.js';

// The records kept while the disk is full are bounded: the newest 1000 are written once it has space again, and what
// was dropped before them is said, with its count and time span. A real 4 MiB tmpfs (1000 records fit once it is freed) (mounting needs root).

const tmpfs = smallTmpfsForThisFile('4m', 'traintop-held-bound-');

test('a full spell longer than 1000 records drops the oldest and says which', {timeout: 60_000}, async context => {
	const mount = tmpfs.dir;
	if (mount === null) return context.skip(tmpfs.why);
	const log = path.join(mount, 'traintop-memory.jsonl');
	const filler = path.join(mount, 'filler');
	const recorder = new MemoryLogRecorder({logPath: log, logIntervalMs: 1000, sampleIntervalMs: 1000, gpuThreshold: 85});
	const records: LogRecord[] = [];
	const troubles: (string | null)[] = [];
	recorder.onRecord(record => records.push(record));
	recorder.trouble.subscribe(trouble => troubles.push(trouble));
	const tick = ramTicker();
	fillUntilFull(filler, 65536);
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
