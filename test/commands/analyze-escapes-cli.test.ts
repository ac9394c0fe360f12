import {execFile} from 'node:child_process';
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {promisify} from 'node:util';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

// `traintop --analyze` on a log another program (or a broken node) wrote: its `host`, a GPU's name and uuid and the
// bytes of lines it skips reach the terminal with every control character shown as an escape, and the `--plot` SVG
// stays XML a real parser reads.

const OSC = '\u001b]0;X\u0007';
const CLEAR = '\u001b[2J';
const HOSTILE = `${OSC}${CLEAR}`;
/** How printable() shows HOSTILE. */
const SHOWN = '\\e]0;X\\x07\\e[2J';

let dir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-analyze-escapes-'));
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

const T0 = Date.UTC(2026, 0, 5, 8);

function record(host: string, i: number, ram: number): string {
	return JSON.stringify({
		timestamp: new Date(T0 + i * 30_000).toISOString(),
		host,
		interval_s: 30,
		samples: 30,
		memory: {total_gb: 64, used_gb: 0.64 * ram, percent: ram, peak_percent: ram + 1, available_gb: 10},
		swap: null,
		gpus: [
			{
				index: 0,
				uuid: `GPU-${HOSTILE}`,
				name: `H100${HOSTILE}`,
				memory_used_gb: 40,
				memory_total_gb: 80,
				memory_percent: 50,
				peak_memory_percent: 51,
			},
		],
		alerts: [],
	});
}

/** A log of the given hosts, 20 records each (the second host's RAM breaches), then a line that is not JSON. */
async function hostileLog(hosts: readonly string[]): Promise<string> {
	const file = path.join(dir, 'traintop-memory.jsonl');
	const lines = hosts.flatMap((host, h) => Array.from({length: 20}, (_, i) => record(host, i, h === 1 ? 95 : 40)));
	// JSON.parse's message quotes the line's first bytes.
	lines.push(`${HOSTILE}garbage`);
	await writeFile(file, `${lines.join('\n')}\n`);
	return file;
}

function expectInert(text: string): void {
	expect(text).not.toContain('\u001b');
	expect(text).not.toContain('\u0007');
}

/** `--analyze log` as text, then as Markdown, 200 columns wide: each exits 0, nothing in it raw; then `check` it. */
async function inEachFormat(log: string, check: (out: {stdout: string; stderr: string}) => void): Promise<void> {
	for (const format of [[], ['--markdown']]) {
		const {code, stdout, stderr} = await runCli(['--analyze', log, ...format], {
			env: {...process.env, COLUMNS: '200'},
		});
		expect(code).toBe(0);
		expectInert(stdout);
		expectInert(stderr);
		check({stdout, stderr});
	}
}

describe('--analyze: escapes from the log are inert', () => {
	test('one host: the report shows host, GPU name and uuid escaped; the skipped line too', async () => {
		const log = await hostileLog([`node${HOSTILE}`]);
		await inEachFormat(log, ({stdout, stderr}) => {
			expect(stdout).toContain(`node${SHOWN}`);
			expect(stdout).toContain(`GPU 0 H100${SHOWN} (GPU-${SHOWN})`);
			expect(stderr).toContain('skipped 1 line');
			expect(stderr).toContain(SHOWN);
		});
	});

	test('several hosts: the host table, each host section and an unknown --host message are escaped', async () => {
		const log = await hostileLog([`a${HOSTILE}`, `b${HOSTILE}`]);
		await inEachFormat(log, ({stdout}) => {
			expect(stdout).toContain(`a${SHOWN}`);
			expect(stdout).toContain(`b${SHOWN}`);
		});
		const wrong = await runCli(['--analyze', log, '--host', 'c']);
		expect(wrong.code).toBe(2);
		expectInert(wrong.stderr);
		expect(wrong.stderr).toContain(`they hold a${SHOWN}, b${SHOWN}`);
	});

	test('--json keeps the exact strings (JSON escapes them itself), so a script still matches the host', async () => {
		const log = await hostileLog([`a${HOSTILE}`, `b${HOSTILE}`]);
		const {code, stdout} = await runCli(['--analyze', log, '--json']);
		expect(code).toBe(0);
		expectInert(stdout);
		const json = JSON.parse(stdout) as {hosts: Record<string, unknown>; skipped: {reason: string}[]};
		expect(Object.keys(json.hosts).sort()).toEqual([`a${HOSTILE}`, `b${HOSTILE}`]);
		expect(json.skipped[0]?.reason).toContain(OSC);
	});

	test("a log file's name from a run dir's listing: the left-out note and the no-record error show it escaped", async () => {
		const empty = path.join(dir, `traintop-memory.x${HOSTILE}.jsonl`);
		await writeFile(empty, '');
		const alone = await runCli(['--analyze', dir]);
		expect(alone.code).toBe(2);
		expectInert(alone.stderr);
		expect(alone.stderr).toContain(`traintop-memory.x${SHOWN}.jsonl: no memory record in it (it is empty)`);
		await hostileLog(['node1']);
		const beside = await runCli(['--analyze', dir]);
		expect(beside.code).toBe(0);
		expectInert(beside.stderr);
		expect(beside.stderr).toContain(`left out ${empty.replace(HOSTILE, SHOWN)}: no memory record in it`);
	});

	test.each([
		// One host: its panels are labelled with the GPU's name; several: the legend names each host.
		['one host', [`node${HOSTILE}\u0001\uFFFE`], `GPU 0 H100${SHOWN}`],
		['several hosts', [`a${HOSTILE}<&>"'`, `b${HOSTILE}\u0000`], `a${SHOWN}<&>"'`],
	])('--plot (%s): the SVG parses as XML and holds no control character', async (_, hosts, shown) => {
		const log = await hostileLog(hosts);
		const svg = path.join(dir, 'chart.svg');
		const {code, stderr} = await runCli(['--analyze', log, '--plot', svg]);
		expect(code).toBe(0);
		const text = await readFile(svg, 'utf8');
		// A real XML parser, not a pattern: what an SVG viewer would do first.
		const parse = await promisify(execFile)('python3', [
			'-c',
			'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print("".join(r.itertext()))',
			svg,
		]);
		// XML 1.0 allows tab, newline and carriage return of the C0 controls, and not U+FFFE/U+FFFF.
		// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters the SVG must not hold
		expect(text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\uFFFE\uFFFF]/);
		expect(parse.stdout).toContain(shown);
		expectInert(stderr);
	});
});
