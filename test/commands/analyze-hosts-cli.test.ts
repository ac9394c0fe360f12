import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

// `traintop --analyze` as a real child process on the logs of a two-node job: one series per host, `--host`.

let dir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-analyze-hosts-'));
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

const T0 = Date.UTC(2026, 0, 5, 8);

/** A record as traintop's writer writes it: node1's RAM 40–49 %, node2's 70–89 % (peaks one more), one GPU each. */
function record(host: 'node1' | 'node2', i: number): string {
	const ram = host === 'node1' ? 40 + (i % 10) : 70 + (i % 20);
	return JSON.stringify({
		timestamp: new Date(T0 + i * 30_000 + (host === 'node2' ? 2000 : 0)).toISOString(),
		host,
		interval_s: 30,
		samples: 30,
		memory: {total_gb: 503.7, used_gb: 5.037 * ram, percent: ram, peak_percent: ram + 1, available_gb: 100},
		swap: null,
		gpus: [
			{
				index: 0,
				uuid: `GPU-${host}`,
				name: 'NVIDIA H100 80GB HBM3',
				memory_used_gb: 40,
				memory_total_gb: 79.6,
				memory_percent: host === 'node1' ? 30 : 60,
				peak_memory_percent: host === 'node1' ? 31 : 61,
				utilization_percent: 97,
			},
		],
		alerts: [],
	});
}

const records = (host: 'node1' | 'node2') => Array.from({length: 100}, (_, i) => record(host, i));

async function twoFiles(): Promise<void> {
	for (const host of ['node1', 'node2'] as const) {
		await writeFile(path.join(dir, `traintop-memory.${host}.jsonl`), `${records(host).join('\n')}\n`);
	}
}

type HostJson = {records: number; metrics: Record<string, {max: number; min: number}>; restarts: unknown[]};
type Json = HostJson & {files: string[]; breached: boolean; hosts?: Record<string, HostJson>};

async function analyzeJson(args: string[]): Promise<Json> {
	const {code, stdout, stderr} = await runCli(['--analyze', ...args, '--json']);
	expect(stderr).toBe('');
	expect(code).toBe(0);
	return JSON.parse(stdout) as Json;
}

describe('traintop --analyze on a two-node job', () => {
	test('a run dir with one log per host: a series per host, no restarts, each host its own peaks', async () => {
		await twoFiles();
		const json = await analyzeJson([dir]);
		expect(json.files.map(f => path.basename(f))).toEqual([
			'traintop-memory.node1.jsonl',
			'traintop-memory.node2.jsonl',
		]);
		expect(json.records).toBe(200);
		expect(json.restarts).toEqual([]);
		const hosts = json.hosts!;
		expect(Object.keys(hosts)).toEqual(['node2', 'node1']);
		expect(hosts.node1).toMatchObject({records: 100, restarts: []});
		expect(hosts.node1!.metrics.ram).toMatchObject({min: 40, max: 50});
		expect(hosts.node1!.metrics.gpu0).toMatchObject({max: 31});
		expect(hosts.node2!.metrics.ram).toMatchObject({min: 70, max: 90});
		// The top level's metrics are the worst host's, and say which.
		expect(json.metrics.ram).toMatchObject({max: 90, host: 'node2'});

		const text = await runCli(['--analyze', dir, '--fail-on-breach']);
		expect(text.code).toBe(4);
		expect(text.stdout).toContain('Verdict  BREACHED on 1 of 2 hosts: node2');
		expect(text.stdout).toMatch(/^node2 +100 +49 m 30 s +90\.0 +– +61\.0 +\d+ +0$/m);
		expect(text.stdout).toMatch(/^node1 +100 +49 m 30 s +50\.0 +– +31\.0 +0 +0$/m);
		expect(text.stdout).toContain('GPU 0 NVIDIA H100 80GB HBM3 (GPU-node1)  (threshold 90 %, 100 samples)');
		expect(text.stdout).not.toContain('Restarts: 1');
		for (const line of text.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
	});

	test('the same two hosts interleaved in one file: the same per-host figures', async () => {
		await twoFiles();
		const apart = await analyzeJson([dir]);
		const file = path.join(dir, 'both.jsonl');
		const n1 = records('node1');
		const n2 = records('node2');
		await writeFile(file, `${n1.flatMap((line, i) => [line, n2[i]!]).join('\n')}\n`);
		const together = await analyzeJson([file]);
		expect(together.hosts).toEqual(apart.hosts);
	});

	test("--host picks one host: that host's report, as a log of one host reads; --fail-on-breach judges it alone", async () => {
		await twoFiles();
		const json = await analyzeJson([dir, '--host', 'node1']);
		expect(json.hosts).toBeUndefined();
		expect(json.records).toBe(100);
		expect(json.metrics.ram).toMatchObject({min: 40, max: 50});
		const quiet = await runCli(['--analyze', dir, '--host', 'node1', '--fail-on-breach']);
		expect(quiet.code).toBe(0);
		expect(quiet.stdout).toContain('Hosts    node1\nVerdict  no threshold reached');
		const loud = await runCli(['--analyze', dir, '--host', 'node2', '--fail-on-breach']);
		expect(loud.code).toBe(4);
	});

	test('--host that the logs do not hold: exit 2 naming those they do; --host without --analyze: exit 2', async () => {
		await twoFiles();
		const unknown = await runCli(['--analyze', dir, '--host', 'node3']);
		expect(unknown.code).toBe(2);
		expect(unknown.stdout).toBe('');
		expect(unknown.stderr).toContain('--host node3: no record of that host in the logs; they hold node1, node2');
		const alone = await runCli(['--host', 'node1', '--no-log']);
		expect(alone.code).toBe(2);
		expect(alone.stderr).toContain('--host NAME goes with --analyze');
	});

	test('--plot: a line per host in each panel', async () => {
		await twoFiles();
		const svg = path.join(dir, 'chart.svg');
		const {code, stderr} = await runCli(['--analyze', dir, '--plot', svg]);
		expect(code).toBe(0);
		expect(stderr).toContain(`wrote ${svg}`);
		const chart = await readFile(svg, 'utf8');
		const ram = chart.split('data-metric="ram"')[1]!.split('</g>')[0]!;
		expect([...ram.matchAll(/<path class="peak" data-host="([^"]+)"/g)].map(m => m[1])).toEqual(['node2', 'node1']);
	});
});
