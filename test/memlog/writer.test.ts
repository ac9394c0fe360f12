import {execFileSync, spawn} from 'node:child_process';
import {mkdtemp, readFile, writeFile, mkdir, chmod, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import {MemoryLogWriter} from '../../src/memlog/writer.js';
import {plainRecord} from '../helpers/log-records.js';
import {requireBuild, ROOT} from '../helpers/dist.js';

let dir: string;

function parses(line: string): boolean {
	try {
		JSON.parse(line);
		return true;
	} catch {
		return false;
	}
}
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-writer-'));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

describe('MemoryLogWriter', () => {
	test('writes one JSON object per line and appends to an existing log without rewriting it', async () => {
		const file = path.join(dir, 'append.jsonl');
		await writeFile(
			file,
			'{"timestamp":"2024-01-15T10:30:00","memory":{"total_gb":32,"used_gb":28.5,"percent":89.1}}\n',
		);
		const writer = MemoryLogWriter.open(file);
		writer.append(plainRecord(1));
		writer.append(plainRecord(2));
		writer.close();
		const lines = (await readFile(file, 'utf8')).split('\n');
		expect(lines).toHaveLength(4);
		expect(lines[3]).toBe('');
		expect(JSON.parse(lines[0]!).memory.percent).toBe(89.1);
		expect(JSON.parse(lines[1]!)).toEqual(plainRecord(1));
		expect(JSON.parse(lines[2]!)).toEqual(plainRecord(2));
	});

	test('a torn last line from an earlier crash is left alone, and the next record starts a fresh line', async () => {
		const file = path.join(dir, 'torn.jsonl');
		await writeFile(file, `${JSON.stringify(plainRecord(0))}\n{"timestamp":"2024-01-1`);
		const writer = MemoryLogWriter.open(file);
		writer.append(plainRecord(1));
		writer.close();
		const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
		expect(lines).toEqual([JSON.stringify(plainRecord(0)), '{"timestamp":"2024-01-1', JSON.stringify(plainRecord(1))]);
	});

	test('an unwritable path is a usage error naming the path', async () => {
		const missingDir = path.join(dir, 'no-such-dir', 'log.jsonl');
		expect(() => MemoryLogWriter.open(missingDir)).toThrow(UsageError);
		expect(() => MemoryLogWriter.open(missingDir)).toThrow(`cannot write the memory log ${missingDir}: ENOENT`);
		const aDirectory = path.join(dir, 'is-a-dir');
		await mkdir(aDirectory);
		expect(() => MemoryLogWriter.open(aDirectory)).toThrow(`cannot write the memory log ${aDirectory}: EISDIR`);
		if (process.getuid?.() !== 0) {
			const readOnly = path.join(dir, 'ro');
			await mkdir(readOnly);
			await chmod(readOnly, 0o500);
			expect(() => MemoryLogWriter.open(path.join(readOnly, 'log.jsonl'))).toThrow(/EACCES/);
		}
	});

	test('kill -9 of a real writer at any moment: every complete line parses, and the log only grows', async () => {
		requireBuild();
		const file = path.join(dir, 'killed.jsonl');
		let previousSize = 0;
		let tornTails = 0;
		for (let round = 0; round < 8; round++) {
			const child = spawn(process.execPath, [path.join(ROOT, 'test/helpers/log-writer-child.mjs'), file], {
				stdio: ['ignore', 'pipe', 'inherit'],
			});
			await new Promise<void>(resolve => child.stdout.once('data', () => resolve()));
			// Let it write for a varying while, then kill it mid-loop.
			await new Promise(resolve => setTimeout(resolve, 20 + round * 13));
			const exited = new Promise(resolve => child.once('exit', (_code, signal) => resolve(signal)));
			child.kill('SIGKILL');
			expect(await exited).toBe('SIGKILL');

			const text = await readFile(file, 'utf8');
			expect(text.length).toBeGreaterThan(previousSize);
			previousSize = text.length;
			const cut = text.lastIndexOf('\n');
			const complete = text.slice(0, cut).split('\n');
			const tail = text.slice(cut + 1);
			// Complete lines: records, or fragments that earlier rounds left and the writer isolated.
			const fragments = complete.filter(line => !parses(line));
			expect(fragments).toHaveLength(tornTails);
			for (const fragment of fragments) expect(fragment.startsWith('{"timestamp":')).toBe(true);
			for (const line of complete.filter(parses)) expect((JSON.parse(line) as {gpus: unknown[]}).gpus).toHaveLength(64);
			// The tail, if any, is a prefix of the record being written when the kill landed.
			if (tail !== '') {
				expect(tail.startsWith('{"timestamp":')).toBe(true);
				expect(parses(tail)).toBe(false);
				tornTails++;
			}
		}
		expect(previousSize).toBeGreaterThan(100_000);
	});
});

describe('a log path that is a FIFO', () => {
	test('is refused at open with a message naming it, never blocking on the first write', async () => {
		const dir = await mkdtemp(path.join(tmpdir(), 'traintop-writer-fifo-'));
		try {
			const fifo = path.join(dir, 'traintop-memory.jsonl');
			execFileSync('mkfifo', [fifo]);
			expect(() => MemoryLogWriter.open(fifo)).toThrow(
				`cannot write the memory log ${fifo}: it is a FIFO, not a regular file (choose another --log-file, or --no-log)`,
			);
		} finally {
			await rm(dir, {recursive: true, force: true});
		}
	});
});
