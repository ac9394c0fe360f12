import {execFileSync} from 'node:child_process';
import {chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, test} from 'vitest';
import {UsageError} from '../../src/core/errors.js';
import {MemoryLogWriter} from '../../src/memlog/writer.js';
import {plainRecord} from '../helpers/log-records.js';
import {runCli} from '../helpers/run-cli.js';

// Another user prepares the log's path, and traintop runs as root (as it may, to see every rank): before, their
// `ln -s /root/t.txt RUN/traintop-memory.jsonl` made traintop create or append to /root/t.txt. Real links and files
// made by a real other user (`nobody`, through a child process run as that user), so the kernel's own ownership is what is checked.

const ROOT = process.getuid?.() === 0;
const NOBODY = 65534;

let base: string;
/** A file only root can write, the target of the other user's link. */
let secret: string;
beforeAll(() => {
	base = mkdtempSync(path.join(tmpdir(), 'traintop-log-links-'));
	chmodSync(base, 0o755);
	const rootOnly = path.join(base, 'root-only');
	mkdirSync(rootOnly, {mode: 0o700});
	secret = path.join(rootOnly, 't.txt');
	writeFileSync(secret, 'root secret\n');
});
afterAll(() => {
	rmSync(base, {recursive: true, force: true});
});

/** A run dir owned by `nobody` (mode 755), as another user's job makes it. */
function othersRunDir(name: string): string {
	const dir = path.join(base, name);
	mkdirSync(dir, {mode: 0o755});
	chownSync(dir, NOBODY, NOBODY);
	return dir;
}

/** Runs a line of Node as `nobody` (fs is in scope): what that user, not root, makes in their own run dir. */
function asNobody(code: string): void {
	execFileSync(process.execPath, ['-e', `const fs = require('node:fs'); ${code}`], {
		uid: NOBODY,
		gid: NOBODY,
		stdio: 'pipe',
	});
}

function openError(file: string): string {
	try {
		MemoryLogWriter.open(file).close();
	} catch (error) {
		expect(error).toBeInstanceOf(UsageError);
		return (error as Error).message;
	}
	throw new Error(`${file} was opened`);
}

describe.skipIf(!ROOT)('the memory log is never written through a link or into a file of another user', () => {
	test("another user's link at the log's path is refused; its target is neither created nor appended to", () => {
		const run = othersRunDir('run-link');
		const log = path.join(run, 'traintop-memory.jsonl');
		asNobody(`fs.symlinkSync(${JSON.stringify(secret)}, ${JSON.stringify(log)})`);
		expect(openError(log)).toBe(
			`cannot write the memory log ${log}: it is a symbolic link, and the memory log is never written through one (whoever made it could point it at any file) (choose another --log-file, or --no-log)`,
		);
		const missing = path.join(base, 'root-only', 'new.txt');
		const dangling = path.join(run, 'dangling.jsonl');
		asNobody(`fs.symlinkSync(${JSON.stringify(missing)}, ${JSON.stringify(dangling)})`);
		expect(openError(dangling)).toContain('it is a symbolic link');
		expect(readFileSync(secret, 'utf8')).toBe('root secret\n');
		expect(existsSync(missing)).toBe(false);
	});

	test("a regular file of another user at the log's path is refused, not appended to", () => {
		const run = othersRunDir('run-file');
		const log = path.join(run, 'traintop-memory.jsonl');
		asNobody(`fs.writeFileSync(${JSON.stringify(log)}, 'theirs\\n')`);
		expect(openError(log)).toBe(
			`cannot write the memory log ${log}: it belongs to user ${NOBODY}, not to you (user 0): traintop appends only to a log of its own user (choose another --log-file, or --no-log)`,
		);
		expect(readFileSync(log, 'utf8')).toBe('theirs\n');
	});

	test('a world-writable directory without the sticky bit is refused; with it, the log is written', () => {
		const open = path.join(base, 'open');
		mkdirSync(open);
		chmodSync(open, 0o777);
		expect(openError(path.join(open, 'log.jsonl'))).toBe(
			`cannot write the memory log ${path.join(open, 'log.jsonl')}: its directory ${open} is world-writable without the sticky bit (mode 777), so anyone who can write there could swap the log for a link to another file (choose another --log-file, or --no-log)`,
		);
		const group = path.join(base, 'group');
		mkdirSync(group);
		chmodSync(group, 0o775);
		expect(openError(path.join(group, 'log.jsonl'))).toContain(`its directory ${group} is group-writable`);
		chmodSync(open, 0o1777);
		const writer = MemoryLogWriter.open(path.join(open, 'log.jsonl'));
		writer.append(plainRecord(0));
		writer.close();
		expect(readFileSync(path.join(open, 'log.jsonl'), 'utf8')).toContain('"timestamp"');
	});

	test('our own log in the run dir of another user is still written; a device such as /dev/null stays allowed', () => {
		const run = othersRunDir('run-ours');
		const writer = MemoryLogWriter.open(path.join(run, 'traintop-memory.jsonl'));
		writer.append(plainRecord(0));
		writer.close();
		MemoryLogWriter.open('/dev/null').close();
	});

	test('the real binary exits 2 naming the link and leaves its target alone', async () => {
		const run = othersRunDir('run-cli');
		const log = path.join(run, 'traintop-memory.jsonl');
		asNobody(`fs.symlinkSync(${JSON.stringify(secret)}, ${JSON.stringify(log)})`);
		const result = await runCli(['--headless', run, '--nvidia-smi', '/nonexistent/nvidia-smi']);
		expect(result.code).toBe(2);
		expect(result.stderr).toContain(`cannot write the memory log ${log}: it is a symbolic link`);
		expect(readFileSync(secret, 'utf8')).toBe('root secret\n');
	});
});
