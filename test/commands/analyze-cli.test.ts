import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {runCli, startCli} from '../helpers/run-cli.js';

// `traintop --analyze` as a real child process, on logs written by traintop itself and by the seed tool.

let dir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-analyze-cli-'));
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

/** The seed tool's records, pretty-printed one after another as it wrote them, RAM rising past 85 %. */
function seedLog(percents: number[]): string {
	return percents
		.map((percent, i) =>
			JSON.stringify(
				{
					timestamp: new Date(Date.UTC(2024, 0, 15, 10, 30) + i * 30_000).toISOString().replace('.000Z', ''),
					memory: {total_gb: 32, used_gb: (32 * percent) / 100, percent},
					gpu: {memory_allocated_gb: 12.3, memory_total_gb: 16, memory_percent: 76.9},
				},
				null,
				2,
			),
		)
		.join('\n');
}

type AnalysisJson = {
	files: string[];
	records: number;
	skipped: {file: string; line: number; reason: string}[];
	breached: boolean;
	metrics: Record<string, {min: number; max: number; p50: number; time_above_threshold_s: number; episodes: unknown[]}>;
};

describe('traintop --analyze', () => {
	test('a log written by the headless monitor: every record read, RAM statistics, exit 0', async () => {
		const run = startCli([
			'--headless',
			dir,
			'--interval',
			'0.1',
			'--log-interval',
			'0.2',
			'--nvidia-smi',
			'/nonexistent',
		]);
		await run.waitFor(o => o.stdout.split('\n').filter(Boolean).length >= 5);
		run.child.kill('SIGINT');
		expect(await run.exited).toBe(0);
		const lines = (await readFile(path.join(dir, 'traintop-memory.jsonl'), 'utf8')).trim().split('\n');
		const {code, stdout} = await runCli(['--analyze', dir, '--json']);
		expect(code).toBe(0);
		const analysis = JSON.parse(stdout) as AnalysisJson;
		expect(analysis.files).toEqual([path.join(dir, 'traintop-memory.jsonl')]);
		expect(analysis.records).toBe(lines.length);
		expect(analysis.skipped).toEqual([]);
		const ram = analysis.metrics.ram!;
		// RAM as it was judged: against a cgroup limit where a record has one (a rank of another test running in a
		// limited cgroup can be this traintop's rank too), else the host's.
		type Ram = {percent: number; peak_percent: number};
		const percents = lines.map(l => {
			const {memory} = JSON.parse(l) as {memory: Ram & {cgroup?: Ram | null}};
			return memory.cgroup ?? memory;
		});
		expect(ram.min).toBeCloseTo(Math.min(...percents.map(p => p.percent)), 5);
		expect(ram.max).toBeCloseTo(Math.max(...percents.map(p => p.peak_percent)), 5);
		expect(analysis.breached).toBe(false);
		const text = await runCli(['--analyze', path.join(dir, 'traintop-memory.jsonl')]);
		expect(text.code).toBe(0);
		// Headed by what RAM was judged against: the job's cgroup limit when a record has one, as above.
		expect(text.stdout).toMatch(/^RAM( \(job cgroup limit [^)]+\))? {2}\(threshold 85 %/m);
		// Two seconds of log: no trend may be projected from it, and it states the span the Span line states.
		const span = /^Span .* UTC \((.+)\)$/m.exec(text.stdout)![1]!;
		expect(text.stdout).toContain(`trend: too little data to tell (${span}, ${lines.length} points)`);
		for (const line of text.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
	});

	test("the seed tool's pretty-printed records; a breach → exit 4 with --fail-on-breach; skipped lines named", async () => {
		const file = path.join(dir, 'memory_log.json');
		await writeFile(file, `${seedLog([70, 80, 86, 90, 88, 70])}\n{"timestamp": "broken`);
		const {code, stdout, stderr} = await runCli(['--analyze', file, '--json', '--fail-on-breach']);
		expect(code).toBe(4);
		const analysis = JSON.parse(stdout) as AnalysisJson;
		expect(analysis.records).toBe(6);
		expect(analysis.breached).toBe(true);
		expect(analysis.metrics.ram).toMatchObject({min: 70, max: 90});
		expect(analysis.metrics.ram!.episodes).toHaveLength(1);
		expect(analysis.skipped).toHaveLength(1);
		expect(analysis.skipped[0]?.file).toBe(file);
		expect(stderr).toBe('');
		const text = await runCli(['--analyze', file]);
		expect(text.code).toBe(0);
		expect(text.stderr).toMatch(
			new RegExp(
				`skipped 1 line\\(s\\) that are not memory records:\\n {2}${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: `,
			),
		);
		const quiet = await runCli(['--analyze', file, '--ram-threshold', '95', '--fail-on-breach']);
		expect(quiet.code).toBe(0);
	});

	test('a large --json report reaches the pipe whole (it used to be cut when traintop exited)', async () => {
		// RAM going over and back under the 85 % line every 4 records (2 above, 2 below: episodes do not
		// merge across 2 records below) for 20,000 records: 5,000 episodes, a report of several 100 KiB.
		const file = path.join(dir, 'hover.jsonl');
		const lines = Array.from({length: 20_000}, (_, i) => {
			const percent = i % 4 < 2 ? 86 : 80;
			return JSON.stringify({
				timestamp: new Date(Date.UTC(2026, 0, 1) + i * 30_000).toISOString(),
				interval_s: 30,
				memory: {total_gb: 64, used_gb: 0.64 * percent, percent},
			});
		});
		await writeFile(file, `${lines.join('\n')}\n`);
		const {code, stdout} = await runCli(['--analyze', file, '--json']);
		expect(code).toBe(0);
		expect(stdout.length).toBeGreaterThan(256 * 1024);
		const analysis = JSON.parse(stdout) as AnalysisJson;
		expect(analysis.records).toBe(20_000);
		expect(analysis.metrics.ram!.episodes.length).toBeGreaterThan(1000);
	});

	test('each GPU by its own line in the log; --gpu-thresholds given to --analyze wins over it', async () => {
		// GPU-a: unified memory at 70 % under its recorded 60 % line; GPU-b at 88 % under its own 95 %; GPU-c at 88 %
		// with no line of its own, judged by --gpu-threshold 85.
		const gpus = [
			{index: 0, uuid: 'GPU-a', percent: 70, threshold: 60},
			{index: 1, uuid: 'GPU-b', percent: 88, threshold: 95},
			{index: 2, uuid: 'GPU-c', percent: 88},
		];
		const file = path.join(dir, 'gpu-lines.jsonl');
		const lines = Array.from({length: 4}, (_, i) =>
			JSON.stringify({
				timestamp: new Date(Date.UTC(2026, 10, 24, 10) + i * 30_000).toISOString(),
				interval_s: 30,
				memory: {total_gb: 64, used_gb: 12.8, percent: 20},
				gpus: gpus.map(({percent, threshold, ...g}) => ({
					...g,
					name: null,
					memory_used_gb: percent,
					memory_total_gb: 100,
					memory_percent: percent,
					...(threshold === undefined ? {} : {threshold}),
				})),
			}),
		);
		await writeFile(file, `${lines.join('\n')}\n`);
		type Gpu = {threshold?: number; threshold_from?: string; time_above_threshold_s: number; episodes: unknown[]};
		const judged = async (...flags: string[]) => {
			const {code, stdout} = await runCli(['--analyze', file, '--json', '--gpu-threshold', '85', ...flags]);
			expect(code).toBe(0);
			return (JSON.parse(stdout) as {metrics: Record<string, Gpu>}).metrics;
		};
		const byLog = await judged();
		// Above in all 4 records, 30 s apart: the 90 s of data.
		expect(byLog.gpu0).toMatchObject({threshold: 60, threshold_from: 'log', time_above_threshold_s: 90});
		expect(byLog.gpu0!.episodes).toHaveLength(1);
		expect(byLog.gpu1).toMatchObject({threshold: 95, threshold_from: 'log', episodes: []});
		expect(byLog.gpu2).toMatchObject({time_above_threshold_s: 90});
		expect(byLog.gpu2).not.toHaveProperty('threshold_from');

		const byFlag = await judged('--gpu-thresholds', 'GPU-a=75,GPU-c=90');
		expect(byFlag.gpu0).toMatchObject({threshold: 75, threshold_from: 'flag', episodes: []});
		expect(byFlag.gpu1).toMatchObject({threshold: 95, threshold_from: 'log', episodes: []});
		expect(byFlag.gpu2).toMatchObject({threshold: 90, threshold_from: 'flag', episodes: []});
		const quiet = await runCli(['--analyze', file, '--gpu-thresholds', 'GPU-a=75', '--fail-on-breach']);
		// Default --gpu-threshold 90: GPU-c's 88 % is under it, GPU-a under its flag, GPU-b under its line.
		expect(quiet.code).toBe(0);
		expect(quiet.stdout).toContain('  threshold 75 % from --gpu-thresholds, not the global 90 %');
		expect(quiet.stdout).toContain("  threshold 95 % from this GPU's own line in the log, not the global 90 %");
		const breached = await runCli(['--analyze', file, '--fail-on-breach']);
		expect(breached.code).toBe(4);
		expect(breached.stdout).toContain("  threshold 60 % from this GPU's own line in the log, not the global 90 %");
	});

	test('--markdown and --plot', async () => {
		const file = path.join(dir, 'log.json');
		await writeFile(file, seedLog([50, 60, 95, 60]));
		const svg = path.join(dir, 'chart.svg');
		const {code, stdout, stderr} = await runCli(['--analyze', file, '--markdown', '--plot', svg]);
		expect(code).toBe(0);
		expect(stdout).toMatch(/^\|.*\|$/m);
		expect(stderr).toContain(`wrote ${svg}`);
		const chart = await readFile(svg, 'utf8');
		expect(chart).toMatch(/^(<\?xml[^>]*\?>\s*)?<svg[\s>]/);
		expect(chart.trimEnd().endsWith('</svg>')).toBe(true);
	});

	test('usage errors: a missing path, a file without memory records, an unwritable plot, --json with --markdown', async () => {
		const missing = await runCli(['--analyze', path.join(dir, 'nope.jsonl')]);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain(path.join(dir, 'nope.jsonl'));
		const junk = path.join(dir, 'junk.jsonl');
		await writeFile(junk, 'hello\nworld\n');
		const noRecords = await runCli(['--analyze', junk]);
		expect(noRecords.code).toBe(2);
		expect(noRecords.stderr).toContain(junk);
		const file = path.join(dir, 'log.json');
		await writeFile(file, seedLog([50, 60]));
		const badPlot = await runCli(['--analyze', file, '--plot', path.join(dir, 'no-dir', 'x.svg')]);
		expect(badPlot.code).toBe(2);
		expect(badPlot.stderr).toContain(`cannot write the plot ${path.join(dir, 'no-dir', 'x.svg')}`);
		const both = await runCli(['--analyze', file, '--json', '--markdown']);
		expect(both.code).toBe(2);
		expect(both.stderr).toContain('--json and --markdown cannot be used together');
	});
});
