import {spawnSync} from 'node:child_process';
import {execFileSync} from 'node:child_process';
import {chmod, mkdir, mkdtemp, open, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {CLI, requireBuild} from '../helpers/dist.js';
import {runCli} from '../helpers/run-cli.js';

// `traintop --analyze` on hostile input, as a real child process: millions of bad lines in a capped heap, a
// directory it may not read, a FIFO, an empty log beside good ones, impossible values.

let dir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-analyze-bad-'));
});
afterEach(async () => {
	await chmod(dir, 0o755).catch(() => {});
	await rm(dir, {recursive: true, force: true});
});

type AnalysisJson = {
	files: string[];
	records: number;
	skipped: {file: string; line: number; reason: string}[];
	skipped_total: number;
	skipped_by_reason: Record<string, number>;
	files_left_out: {file: string; reason: string}[];
	metrics: Record<string, {min: number; mean: number; max: number; trend: {slope_per_hour: number | null}}>;
};

function record(i: number, percent: number): string {
	return JSON.stringify({
		timestamp: new Date(Date.UTC(2026, 0, 1) + i * 30_000).toISOString(),
		interval_s: 30,
		memory: {total_gb: 64, used_gb: 0.64 * percent, percent},
	});
}

/** Writes `count` copies of `line` without holding them all in this process. */
async function repeatLines(file: string, line: string, count: number): Promise<void> {
	const handle = await open(file, 'a');
	const block = `${line}\n`.repeat(10_000);
	for (let written = 0; written < count; written += 10_000) await handle.write(block);
	await handle.close();
}

const noStackTrace = (stderr: string) => expect(stderr).not.toMatch(/^\s+at /m);

describe('traintop --analyze on bad input', () => {
	test('400,000 skipped lines in a 64 MB heap: counts and the first examples of each reason, not every line', async () => {
		const file = path.join(dir, 'traintop-memory.jsonl');
		await writeFile(file, `${record(0, 40)}\n${record(1, 50)}\n`);
		await repeatLines(file, '{}', 200_000);
		await repeatLines(file, 'garbage: not a record at all', 200_000);
		await writeFile(file, `${record(2, 60)}\n`, {flag: 'a'});
		// The heap cap makes memory that grows with the skipped lines fail the run (it held ~500 bytes a line).
		const env = {NODE_OPTIONS: '--max-old-space-size=64'};
		const {code, stdout, stderr} = await runCli(['--analyze', file, '--json'], {env, timeoutMs: 60_000});
		expect(stderr).toBe('');
		expect(code).toBe(0);
		const analysis = JSON.parse(stdout) as AnalysisJson;
		expect(analysis.records).toBe(3);
		expect(analysis.skipped_total).toBe(400_000);
		expect(analysis.skipped_by_reason).toEqual({timestamp: 200_000, 'not JSON': 200_000});
		// The first 10 of each reason, in file order.
		expect(analysis.skipped.map(s => s.line)).toEqual([
			...Array.from({length: 10}, (_, i) => 3 + i),
			...Array.from({length: 10}, (_, i) => 200_003 + i),
		]);
		const text = await runCli(['--analyze', file], {env, timeoutMs: 60_000});
		expect(text.code).toBe(0);
		expect(text.stdout).toContain('Records  3 from 1 file, 400000 lines skipped');
		expect(text.stderr).toContain('traintop: skipped 400000 line(s) that are not memory records:');
		expect(text.stderr).toContain(`  ${file}:3: timestamp: missing (+1 more)`);
		expect(text.stderr).toContain('  … and 199997 more: timestamp');
		expect(text.stderr).toContain('  … and 199997 more: not JSON');
		expect(text.stderr.split('\n').length).toBeLessThan(20);
	}, 120_000);

	test('a directory it may not read: a message naming it and the reason, exit 2, no stack trace', async () => {
		requireBuild();
		const locked = path.join(dir, 'locked');
		await mkdir(locked);
		await writeFile(path.join(locked, 'traintop-memory.jsonl'), `${record(0, 40)}\n`);
		await chmod(locked, 0o000);
		await chmod(dir, 0o755);
		const root = process.getuid?.() === 0;
		// root reads any directory: run traintop as nobody there, so the kernel says EACCES.
		const as = root ? {uid: 65534, gid: 65534} : {};
		const analyse = (target: string) =>
			spawnSync(process.execPath, [CLI, '--analyze', target], {
				...as,
				encoding: 'utf8',
				env: {...process.env, HOME: dir, XDG_CONFIG_HOME: dir},
				timeout: 15_000,
			});
		const run = analyse(locked);
		expect(run.stderr).toBe(`traintop: ${locked}: cannot read the directory (EACCES)\n`);
		expect(run.status).toBe(2);
		const inside = analyse(path.join(locked, 'traintop-memory.jsonl'));
		expect(inside.stderr).toBe(`traintop: ${path.join(locked, 'traintop-memory.jsonl')}: cannot read it (EACCES)\n`);
		expect(inside.status).toBe(2);
		noStackTrace(run.stderr + inside.stderr);
	});

	test('a FIFO is refused at once with a message, named or in a run dir; it is never opened', async () => {
		const fifo = path.join(dir, 'traintop-memory.1.jsonl');
		execFileSync('mkfifo', [fifo]);
		await writeFile(path.join(dir, 'traintop-memory.jsonl'), `${record(0, 40)}\n`);
		const started = Date.now();
		const named = await runCli(['--analyze', fifo], {timeoutMs: 10_000});
		expect(named.stderr).toBe(`traintop: ${fifo}: not a regular file (a FIFO); --analyze reads files\n`);
		expect(named.code).toBe(2);
		// In a run dir, the FIFO is not a log: the regular files are read.
		const run = await runCli(['--analyze', dir, '--json'], {timeoutMs: 10_000});
		expect(run.code).toBe(0);
		expect((JSON.parse(run.stdout) as AnalysisJson).files).toEqual([path.join(dir, 'traintop-memory.jsonl')]);
		expect(Date.now() - started).toBeLessThan(10_000);
	});

	test('an empty log beside good ones is left out with a note; only logs with no record at all fail', async () => {
		const good = path.join(dir, 'traintop-memory.jsonl');
		const empty = path.join(dir, 'traintop-memory.1.jsonl');
		const bad = path.join(dir, 'traintop-memory.2.jsonl');
		await writeFile(good, `${record(0, 40)}\n${record(1, 50)}\n`);
		await writeFile(empty, '');
		await writeFile(bad, 'not a record\n');
		const text = await runCli(['--analyze', dir]);
		expect(text.code).toBe(0);
		expect(text.stdout).toContain('Records  2 from 3 files, 1 line skipped');
		expect(text.stderr).toContain(`traintop: left out ${empty}: no memory record in it (it is empty)\n`);
		expect(text.stderr).toContain(
			`traintop: left out ${bad}: no memory record in it (1 line(s) skipped as bad input)\n`,
		);
		const json = JSON.parse((await runCli(['--analyze', dir, '--json'])).stdout) as AnalysisJson;
		expect(json.files_left_out).toEqual([
			{file: empty, reason: 'no memory record in it (it is empty)'},
			{file: bad, reason: 'no memory record in it (1 line(s) skipped as bad input)'},
		]);
		const none = await runCli(['--analyze', empty, bad]);
		expect(none.code).toBe(2);
		expect(none.stderr).toBe(
			`traintop: no memory record in any input: ${empty}: it is empty; ${bad}: 1 line(s) skipped as bad input\n`,
		);
	});

	test('impossible values are skipped with a reason and never reach the statistics', async () => {
		const file = path.join(dir, 'traintop-memory.jsonl');
		const lines = [record(0, 40), record(1, 250), record(2, 1e308), record(3, 50), record(4, -3), record(5, 60)];
		await writeFile(file, `${lines.join('\n')}\n`);
		const {code, stdout} = await runCli(['--analyze', file, '--json']);
		expect(code).toBe(0);
		const analysis = JSON.parse(stdout) as AnalysisJson;
		expect(analysis.records).toBe(3);
		expect(analysis.metrics.ram).toMatchObject({min: 40, max: 60, mean: 50});
		expect(Number.isFinite(analysis.metrics.ram!.trend.slope_per_hour)).toBe(true);
		expect(analysis.skipped.map(s => [s.line, s.reason])).toEqual([
			[2, 'memory.percent: 250 is out of range (a percentage: 0 to 101)'],
			[3, 'memory.percent: 1e+308 is out of range (a percentage: 0 to 101)'],
			[5, 'memory.percent: -3 is out of range (a percentage: 0 to 101)'],
		]);
	});
});
