import {existsSync} from 'node:fs';
import {mkdtemp, readFile, writeFile, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {OPTIONS} from '../../src/config/options.js';
import {logRecordReadSchema} from '../../src/memlog/record.js';
import {runCli, startCli} from '../helpers/run-cli.js';

// The built binary as a real child process: flags, exit codes, files, signals.

const NO_GPU = ['--nvidia-smi', '/nonexistent/nvidia-smi'];
const FAST = ['--interval', '0.1', '--log-interval', '0.3'];

let dir: string;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-cli-'));
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

function jsonLines(text: string): unknown[] {
	return text
		.trim()
		.split('\n')
		.filter(Boolean)
		.map(line => JSON.parse(line));
}

/** --json's log records, without the job's event objects between them (any rank on this machine may have some). */
function recordLines(text: string): unknown[] {
	return jsonLines(text).filter(line => !(typeof line === 'object' && line !== null && 'event' in line));
}

describe('usage', () => {
	test('--help lists every option with its default and exits 0', async () => {
		const {code, stdout} = await runCli(['--help']);
		expect(code).toBe(0);
		// Descriptions wrap to 80 columns: a default may run over two lines.
		const flat = stdout.replace(/\s+/g, ' ');
		for (const option of OPTIONS) {
			expect(stdout).toContain(option.usage);
			if (option.defaultText !== undefined) expect(flat).toContain(`(default: ${option.defaultText})`);
		}
		expect(stdout).toContain('--ram-threshold PCT');
		expect(stdout).toContain('(default: 85)');
	});

	test('--version prints the package version', async () => {
		const pkg = JSON.parse(await readFile(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as {
			version: string;
		};
		const {code, stdout} = await runCli(['--version']);
		expect(code).toBe(0);
		expect(stdout.trim()).toBe(pkg.version);
	});

	test.each([
		[['--ram-threshold', '120'], '--ram-threshold must be at most 100 (a percentage) (got 120)'],
		[['--interval=-1'], '--interval must be at least 0.1 (seconds) (got -1)'],
		[['--gpu-threshold', 'high'], "--gpu-threshold needs a plain decimal number such as 30 or 0.5 (got 'high')"],
		[['--interval', '10', '--log-interval', '5'], '--log-interval (5 s) must be at least --interval (10 s)'],
		[['--bogus'], 'traintop: unknown option --bogus'],
		[['a', 'b'], 'expected at most one RUN_DIR, got 2'],
	])('%o → exit 2: %s', async (args, message) => {
		const {code, stderr} = await runCli(['--headless', ...NO_GPU, ...args]);
		expect(code).toBe(2);
		expect(stderr).toContain(message);
	});

	test('a bad config file → exit 2 naming the file and key', async () => {
		const file = path.join(dir, 'tt.json');
		await writeFile(file, '{"swapThreshold": 150}');
		const {code, stderr} = await runCli(['--headless', '--config', file]);
		expect(code).toBe(2);
		expect(stderr).toContain(`config file ${file}: key "swapThreshold" must be at most 100`);
		const missing = await runCli(['--headless', '--config', path.join(dir, 'missing.json')]);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain(`cannot read config file ${path.join(dir, 'missing.json')}`);
	});

	test('a RUN_DIR that is a file → exit 2 (one that does not exist yet is waited for)', async () => {
		const file = path.join(dir, 'not-a-dir');
		await writeFile(file, '');
		const {code, stderr} = await runCli(['--headless', ...NO_GPU, file]);
		expect(code).toBe(2);
		expect(stderr).toContain(`RUN_DIR ${file}: not a directory`);
	});

	test('an unwritable log path → exit 2 naming the path, before any monitoring', async () => {
		// Under a regular file: no directory can appear there (a missing directory is waited for instead).
		const file = path.join(dir, 'a-file');
		await writeFile(file, '');
		const target = path.join(file, 'mem.jsonl');
		const {code, stderr, stdout} = await runCli(['--headless', ...NO_GPU, '--log-file', target]);
		expect(code).toBe(2);
		expect(stderr).toContain(`cannot write the memory log ${target}: ENOTDIR`);
		expect(stdout).toBe('');
	});
});

describe('headless monitoring', () => {
	test('status lines per log interval; SIGINT flushes the window as a final record and exits 0', async () => {
		const run = startCli(['--headless', ...NO_GPU, ...FAST, dir]);
		await run.waitFor(o => o.stdout.split('\n').filter(Boolean).length >= 3);
		run.child.kill('SIGINT');
		expect(await run.exited).toBe(0);
		const lines = run.stdout().trim().split('\n');
		// `ram (cgroup limit …) ` when the machine running the tests confines traintop's own cgroup.
		for (const line of lines)
			expect(line).toMatch(
				/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}ram (?:\(.*?\) )?\d+\.\d% ok.* {2}swap .* {2}gpu absent$/,
			);
		// The log went to RUN_DIR/traintop-memory.jsonl by default, one record per status line.
		const records = jsonLines(await readFile(path.join(dir, 'traintop-memory.jsonl'), 'utf8'));
		expect(records).toHaveLength(lines.length);
		for (const r of records) expect(logRecordReadSchema.safeParse(r).success).toBe(true);
		const last = records.at(-1) as {samples: number; interval_s: number; gpu_status: string; gpu_message: string};
		expect(last.interval_s).toBe(0.3);
		expect(last.gpu_status).toBe('absent');
		expect(last.gpu_message).toMatch(/nvidia-smi/);
		expect(run.stderr()).toContain('GPU: not monitored');
		expect(run.stderr()).toContain(`memory log ${path.join(dir, 'traintop-memory.jsonl')}`);
	});

	test('--json prints exactly the records that go to the log', async () => {
		const logFile = path.join(dir, 'custom.jsonl');
		const run = startCli(['--headless', '--json', ...NO_GPU, ...FAST, '--log-file', logFile]);
		// Two whole records (the stream's start line comes before them).
		await run.waitFor(o => (o.stdout.match(/"timestamp"[^\n]*\n/g) ?? []).length >= 2);
		run.child.kill('SIGTERM');
		expect(await run.exited).toBe(0);
		const printed = recordLines(run.stdout());
		const logged = jsonLines(await readFile(logFile, 'utf8'));
		expect(printed).toEqual(logged);
		expect(printed.length).toBeGreaterThanOrEqual(2);
		const first = printed[0] as {memory: {total_gb: number; percent: number}; samples: number};
		expect(first.memory.total_gb).toBeGreaterThan(0);
		expect(first.samples).toBeGreaterThanOrEqual(2);
	});

	test('--no-log writes no file; stdout not being a TTY selects headless without --headless', async () => {
		const run = startCli([...NO_GPU, ...FAST, '--no-log'], {cwd: dir});
		await run.waitFor(o => o.stdout.includes('ram '));
		run.child.kill('SIGHUP');
		expect(await run.exited).toBe(0);
		expect(existsSync(path.join(dir, 'traintop-memory.jsonl'))).toBe(false);
		expect(run.stderr()).toContain('memory log off (--no-log)');
	});

	test('a config file\'s "log": false holds unless a flag says otherwise', async () => {
		const config = path.join(dir, 'quiet.json');
		await writeFile(config, JSON.stringify({log: false, interval: 0.1, logInterval: 0.2}));
		const run = startCli([...NO_GPU, '--config', config], {cwd: dir});
		await run.waitFor(o => o.stdout.includes('ram '));
		run.child.kill('SIGINT');
		expect(await run.exited).toBe(0);
		expect(existsSync(path.join(dir, 'traintop-memory.jsonl'))).toBe(false);
	});

	test("a level change prints a CRIT line on stderr and lands in the record's alerts", async () => {
		const run = startCli(['--json', ...NO_GPU, ...FAST, '--ram-threshold', '0.5', '--no-log']);
		await run.waitFor(o => o.stdout.includes('"alerts"') && o.stderr.includes('CRIT'));
		run.child.kill('SIGINT');
		expect(await run.exited).toBe(0);
		expect(run.stderr()).toMatch(/\d\d:\d\d:\d\d CRIT ram at \d+\.\d%: at or above the 0\.5% threshold \(was ok\)/);
		const records = recordLines(run.stdout()) as {alerts: {metric: string; to: string; threshold: number}[]}[];
		expect(records[0]?.alerts).toEqual([expect.objectContaining({metric: 'ram', to: 'critical', threshold: 0.5})]);
	});

	test('`| head -1` style: when stdout closes, traintop writes its final record and exits 0', async () => {
		const logFile = path.join(dir, 'piped.jsonl');
		const run = startCli(['--json', ...NO_GPU, ...FAST, '--log-file', logFile]);
		// The first record, after the start line: a reader that took both and went away.
		await run.waitFor(o => /"timestamp"[^\n]*\n/.test(o.stdout));
		run.child.stdout.destroy();
		expect(await run.exited).toBe(0);
		const records = jsonLines(await readFile(logFile, 'utf8'));
		expect(records.length).toBeGreaterThanOrEqual(2);
	});
});
