import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

// Issue 16 as a new user met it, with the real binary on a log written by hand: a 2 m 07 s log said "above threshold
// 3 m 00 s", its JSON said `91.88999938964844` for the 91.89 the log holds, and its keys mixed camelCase in. The JSON
// carries a schema_version, every key is snake_case, and every number reads as the log wrote it.

let dir = '';
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-analyze-json-'));
});
afterEach(async () => {
	await rm(dir, {recursive: true, force: true});
});

const T0 = Date.parse('2026-11-22T22:07:00Z');

/** 6 records 25.4 s apart (span 2 m 07 s) saying interval_s 30, RAM above 85 % throughout, GPU 0 with a limit. */
async function issueLog(): Promise<string> {
	const file = path.join(dir, 'traintop-memory.jsonl');
	const lines = [0, 1, 2, 3, 4, 5].map(i => {
		const percent = Math.round((91.34 + i * 0.11) * 100) / 100;
		return JSON.stringify({
			timestamp: new Date(T0 + i * 25_400).toISOString(),
			host: 'gpu-node-7',
			interval_s: 30,
			memory: {
				total_gb: 23.541,
				used_gb: 21.503,
				percent,
				peak_percent: percent,
				cgroup: {scope: 'job', path: '/slurm/job_42', version: 2, limit_gb: 23.541, used_gb: 21.5, percent},
			},
			gpus: [
				{index: 0, uuid: 'GPU-a', memory_used_gb: 61.2, memory_total_gb: 79.6, memory_percent: 76.88, threshold: 87.3},
			],
		});
	});
	await writeFile(file, `${lines.join('\n')}\n`);
	return file;
}

/** Every key of a JSON value, with its path, except the names of hosts (they are the log's data, not keys). */
function keysOf(value: unknown, at = ''): string[] {
	if (Array.isArray(value)) return value.flatMap((v, i) => keysOf(v, `${at}[${i}]`));
	if (value === null || typeof value !== 'object') return [];
	return Object.entries(value).flatMap(([k, v]) =>
		at === '.hosts' ? keysOf(v, `${at}.*`) : [`${at}.${k}`, ...keysOf(v, `${at}.${k}`)],
	);
}

/** Every number of a JSON value with its path. */
function numbersOf(value: unknown, at = ''): [string, number][] {
	if (typeof value === 'number') return [[at, value]];
	if (Array.isArray(value)) return value.flatMap((v, i) => numbersOf(v, `${at}[${i}]`));
	if (value === null || typeof value !== 'object') return [];
	return Object.entries(value).flatMap(([k, v]) => numbersOf(v, `${at}.${k}`));
}

const decimals = (x: number) => (String(x).split('.')[1] ?? '').length;

describe('traintop --analyze --json', () => {
	test('schema_version first, snake_case keys throughout, thresholds included', async () => {
		const file = await issueLog();
		const {code, stdout} = await runCli(['--analyze', file, '--json', '--warn-margin', '7']);
		expect(code).toBe(0);
		const json = JSON.parse(stdout) as Record<string, unknown>;
		expect(Object.keys(json)[0]).toBe('schema_version');
		expect(json.schema_version).toBe(1);
		expect(json.thresholds).toEqual({
			ram: {critical: 85, warn_margin: 7, hysteresis: 2},
			swap: {critical: 50, warn_margin: 7, hysteresis: 2},
			gpu: {critical: 90, warn_margin: 7, hysteresis: 2},
		});
		const keys = keysOf(json);
		expect(keys.filter(k => /[A-Z]/.test(k.split('.').pop()!))).toEqual([]);
		expect(keys).toContain('.metrics.ram.against.limit_min_gb');
	});

	test('every number as the log writes it: percents 2 decimals, GiB 3, seconds to the millisecond', async () => {
		const file = await issueLog();
		const {stdout} = await runCli(['--analyze', file, '--json']);
		const json = JSON.parse(stdout) as {
			metrics: Record<string, {max: number; episodes: {peak: number}[]; threshold?: number}>;
		};
		expect(json.metrics.ram!.max).toBe(91.89);
		expect(json.metrics.ram!.episodes[0]!.peak).toBe(91.89);
		expect(json.metrics.gpu0!.max).toBe(76.88);
		expect(json.metrics.gpu0!.threshold).toBe(87.3);
		for (const [at, x] of numbersOf(json)) {
			const places = at.endsWith('_gb') ? 3 : at.endsWith('_s') ? 3 : at.includes('slope') ? 4 : 2;
			expect(decimals(x), `${at} = ${x}`).toBeLessThanOrEqual(places);
		}
		expect(numbersOf(json).find(([at]) => at === '.metrics.ram.against.limit_max_gb')?.[1]).toBe(23.541);
	});

	test('time above and the episode are the 2 m 07 s of data, in the JSON, the text and the plot', async () => {
		const file = await issueLog();
		const plot = path.join(dir, 'x.svg');
		const json = JSON.parse((await runCli(['--analyze', file, '--json'])).stdout) as {
			first: string;
			last: string;
			metrics: {ram: {time_above_threshold_s: number; episodes: {start: string; end: string; duration_s: number}[]}};
		};
		expect(json.metrics.ram.time_above_threshold_s).toBe(127);
		expect(json.metrics.ram.episodes).toEqual([{start: json.first, end: json.last, duration_s: 127, peak: 91.89}]);
		const text = (await runCli(['--analyze', file, '--plot', plot])).stdout;
		expect(text).toContain('UTC (2 m 07 s)');
		expect(text).toContain('above threshold: 2 m 07 s in 1 episode');
		expect(text).toContain('trend: too little data to tell (2 m 07 s, 6 points)');
		const svg = await readFile(plot, 'utf8');
		const labels = [...svg.matchAll(/<text class="time"[^>]*>([^<]*)<\/text>/g)].map(m => m[1]);
		expect(labels.slice(0, 5)).toEqual(['22:07:00', '22:07:31', '22:08:03', '22:08:35', '22:09:07']);
		const firstX = Number(/<path class="value" d="M([\d.]+) /.exec(svg)![1]);
		const episodeX = Number(/<rect class="episode" x="([\d.]+)"/.exec(svg)![1]);
		expect(episodeX).toBeGreaterThanOrEqual(firstX);
	});
});
