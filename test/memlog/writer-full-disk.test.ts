import {readFileSync, rmSync} from 'node:fs';
import path from 'node:path';
import {expect, test} from 'vitest';
import type {LogRecord} from '../../src/memlog/record.js';
import {MemoryLogWriter} from '../../src/memlog/writer.js';
import {plainRecord} from '../helpers/log-records.js';
import {fillUntilFull, smallTmpfsForThisFile} from '../helpers/small-tmpfs.js';

// A disk that fills up while the log is written: a real 1 MiB tmpfs (mounting needs root; without it the test is
// skipped, and writer.test.ts / recorder.test.ts cover /dev/full, which refuses every write and so cannot tear one).
// tmpfs hands out whole pages, so once the filler has taken every free page, the log's last page still takes the
// first bytes of the record that crosses it: a real torn write, as on a full ext4.

const tmpfs = smallTmpfsForThisFile('1m', 'traintop-fulldisk-');

test('after a full disk tore a record, the next record starts a line of its own (one record lost, not two)', context => {
	const mount = tmpfs.dir;
	if (mount === null) return context.skip(tmpfs.why);
	const file = path.join(mount, 'traintop-memory.jsonl');
	const writer = MemoryLogWriter.open(file);
	writer.append(plainRecord(0));
	const filler = path.join(mount, 'filler');
	fillUntilFull(filler, 4096);
	// Appends go into the last page's slack until one record crosses the page end: its head is written, the rest fails.
	let failed: NodeJS.ErrnoException | null = null;
	let seq = 1;
	for (; failed === null && seq < 100; seq++) {
		try {
			writer.append(plainRecord(seq));
		} catch (error) {
			failed = error as NodeJS.ErrnoException;
		}
	}
	expect(failed?.code).toBe('ENOSPC');
	const torn = seq - 1;
	expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(false); // the disk really tore that record
	// A second failure while the disk is still full must not make things worse.
	expect(() => writer.append(plainRecord(500))).toThrow(/ENOSPC/);
	rmSync(filler);
	writer.append(plainRecord(1000));
	writer.append(plainRecord(1001));
	writer.close();
	const lines = readFileSync(file, 'utf8').split('\n');
	expect(lines.at(-1)).toBe('');
	const parsed = lines.slice(0, -1).flatMap(line => {
		try {
			return [(JSON.parse(line) as LogRecord).timestamp];
		} catch {
			return [];
		}
	});
	// Every record written before the disk filled, none of the torn one, and both written after it was freed.
	const expected = [...Array.from({length: torn}, (_, i) => plainRecord(i).timestamp), plainRecord(1000).timestamp];
	expect(parsed).toEqual([...expected, plainRecord(1001).timestamp]);
	// Exactly one line is not a record: the torn fragment(s), each a prefix of a record.
	const fragments = lines.slice(0, -1).filter(line => !parsed.includes(line.slice(14, 38)));
	expect(fragments.length).toBeGreaterThanOrEqual(1);
	for (const fragment of fragments) expect(fragment.startsWith('{"timestamp":')).toBe(true);
});

test('the record a full disk tore, appended again once there is room, is finished where it was cut: once, no fragment', context => {
	const mount = tmpfs.dir;
	if (mount === null) return context.skip(tmpfs.why);
	const file = path.join(mount, 'traintop-memory-again.jsonl');
	const writer = MemoryLogWriter.open(file);
	writer.append(plainRecord(0));
	const filler = path.join(mount, 'filler-again');
	fillUntilFull(filler, 4096);
	let torn: LogRecord | null = null;
	for (let seq = 1; torn === null && seq < 100; seq++) {
		try {
			writer.append(plainRecord(seq));
		} catch {
			torn = plainRecord(seq);
		}
	}
	expect(torn).not.toBeNull();
	expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(false);
	// Still full: the same record fails again, and takes nothing more.
	expect(() => writer.append(torn!)).toThrow(/ENOSPC/);
	rmSync(filler);
	// As the recorder does: the held record first, then the next one.
	writer.append(torn!);
	writer.append(plainRecord(1000));
	writer.close();
	const lines = readFileSync(file, 'utf8').split('\n');
	expect(lines.at(-1)).toBe('');
	const timestamps = lines.slice(0, -1).map(line => (JSON.parse(line) as LogRecord).timestamp);
	expect(timestamps.at(-2)).toBe(torn!.timestamp);
	expect(timestamps.at(-1)).toBe(plainRecord(1000).timestamp);
	expect(new Set(timestamps).size).toBe(timestamps.length);
});
