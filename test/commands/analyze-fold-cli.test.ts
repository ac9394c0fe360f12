import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

// `traintop --analyze` on a log with more hosts or GPU indices than any real job has: each host and each GPU index
// is its own series only up to a cap (256 hosts, 32 GPUs); the rest go into one series, and the report says how many
// went where. A log of 20,000 GPU indices took 4 GB before; one of 20,000 hosts printed a 420,000-line report.

let dir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-analyze-fold-'));
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

const T0 = Date.UTC(2026, 0, 5, 8);

/** Record i of a node: RAM 50 %, one GPU at `gpuPercent`. */
function record(i: number, host: string, gpuIndex: number, gpuPercent: number): string {
	return JSON.stringify({
		timestamp: new Date(T0 + i * 30_000).toISOString(),
		host,
		interval_s: 30,
		samples: 30,
		memory: {total_gb: 64, used_gb: 32, percent: 50, peak_percent: 51, available_gb: 30},
		swap: null,
		gpus: [
			{
				index: gpuIndex,
				uuid: `GPU-${i}`,
				name: 'NVIDIA H100',
				memory_used_gb: 40,
				memory_total_gb: 80,
				memory_percent: gpuPercent,
				peak_memory_percent: gpuPercent,
			},
		],
		alerts: [],
	});
}

async function log(lines: readonly string[]): Promise<string> {
	const file = path.join(dir, 'traintop-memory.jsonl');
	await writeFile(file, `${lines.join('\n')}\n`);
	return file;
}

type FoldJson = {kind: string; count: number; at_least: boolean; points: number; into: string; kept: number};

describe('--analyze folds the series past the caps and says so', () => {
	test('2,000 GPU indices: 32 GPUs apart, the rest in "GPU (other)", which still sees a folded GPU breach', async () => {
		// One host; record i has GPU i (a new uuid too); the last GPU, folded, is at 99 %.
		const file = await log(Array.from({length: 2000}, (_, i) => record(i, 'node1', i, i === 1999 ? 99 : 50)));
		const text = await runCli(['--analyze', file, '--fail-on-breach']);
		expect(text.code).toBe(4);
		expect(text.stdout).toContain("Folded   1,968 more GPUs into 'GPU (other)', each record's highest (32 kept)");
		// The sections: RAM, GPU 0 … GPU 31, GPU (other); none for GPU 32 on.
		const sections = text.stdout.split('\n').filter(l => /^GPU \S+ .*\(threshold/.test(l));
		expect(sections).toHaveLength(33);
		expect(text.stdout).not.toMatch(/^GPU 32 /m);
		expect(text.stdout).toMatch(/^GPU \(other\) {2}\(threshold 90 %, 1968 samples\)$/m);

		const {stdout} = await runCli(['--analyze', file, '--json']);
		const json = JSON.parse(stdout) as {folded: FoldJson[]; metrics: Record<string, {max: number}>};
		expect(json.folded).toEqual([
			{kind: 'gpus', count: 1968, at_least: false, points: 1968, into: 'gpu-other', kept: 32},
		]);
		expect(Object.keys(json.metrics)).toHaveLength(1 + 32 + 1);
		expect(json.metrics['gpu-other']?.max).toBe(99);
	});

	test('1,000 hosts: 256 apart, the rest one "(other hosts)" series; --host still picks a folded one', async () => {
		const file = await log(Array.from({length: 1000}, (_, i) => record(i, `node${i}`, 0, 50)));
		const text = await runCli(['--analyze', file]);
		expect(text.code).toBe(0);
		expect(text.stdout).toContain("Folded   744 more hosts into '(other hosts)' (256 kept apart)");
		expect(text.stdout).toContain('Hosts    257, worst first');
		// A section per host kept apart and one for the fold: the report is bounded by the cap, not the log.
		const sections = text.stdout.split('\n').filter(l => l.startsWith('━━ '));
		expect(sections).toHaveLength(257);
		expect(sections).toContain(`━━ (other hosts) ${'━'.repeat(80 - 17)}`);
		expect(text.stdout).not.toContain('━━ node256 ');

		const {stdout} = await runCli(['--analyze', file, '--json']);
		const json = JSON.parse(stdout) as {folded: FoldJson[]; hosts: Record<string, {records: number}>};
		expect(json.folded).toEqual([
			{kind: 'hosts', count: 744, at_least: false, points: 744, into: '(other hosts)', kept: 256},
		]);
		expect(Object.keys(json.hosts)).toHaveLength(257);
		expect(json.hosts['(other hosts)']?.records).toBe(744);

		const one = await runCli(['--analyze', file, '--host', 'node900']);
		expect(one.code).toBe(0);
		expect(one.stdout).toContain('Hosts    node900');
		expect(one.stdout).toContain('Records  1 from 1 file');
	});
});
