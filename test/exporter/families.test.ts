import {describe, expect, test} from 'vitest';
import {lastSaveDuration} from '../../src/checkpoints/save-duration.js';
import type {Snapshot} from '../../src/core/types.js';
import {exposition} from '../../src/exporter/exposition.js';
import {FAMILIES} from '../../src/exporter/families.js';
import {type ScrapeInput, scrapeSamples} from '../../src/exporter/scrape.js';
import {checkpointIndex, GIB} from '../helpers/checkpoint-data.js';
import {h200Readings} from '../helpers/h200-health.js';
import {hostMemory} from '../helpers/snapshots.js';
import {type Parsed, parseExposition, series, valueAt} from './exposition-text.js';
import {fullSnapshot, monitorSnapshot, NOW} from './scrape-data.js';

// The families from real snapshots (the Monitor's tick, the H200 recording through the real parser, the job's memory
// and verdicts as the core makes them), written by prom-client and read back by a parser of the text format.

async function scrape(snapshots: Record<string, Snapshot>, extra: Partial<ScrapeInput> = {}): Promise<Parsed> {
	const input: ScrapeInput = {
		snapshots: new Map(Object.entries(snapshots)),
		many: false,
		version: '0.1.0',
		previousScrapeS: null,
		now: NOW + 5000,
		...extra,
	};
	return parseExposition(await exposition(scrapeSamples(input), input.many));
}

describe('one node', async () => {
	const snapshot = await fullSnapshot();
	const parsed = await scrape({'node-7': snapshot});
	const host = {host: 'node-7'};

	test('every family is a gauge, and every series carries host (node-scoped) or none of it', () => {
		for (const [name, type] of parsed.types) expect([name, type]).toEqual([name, 'gauge']);
		const scoped = new Set(FAMILIES.filter(f => f.node).map(f => f.name));
		for (const sample of parsed.samples) {
			expect(sample.labels.host === 'node-7').toBe(scoped.has(sample.name as never));
			expect(sample.labels.node).toBeUndefined();
		}
	});

	test('RAM against the job cgroup limit, the host RAM and swap apart', () => {
		expect(valueAt(parsed, 'traintop_ram_used_percent', host)).toBe(50);
		expect(valueAt(parsed, 'traintop_ram_used_bytes', host)).toBe(8 * GIB);
		expect(valueAt(parsed, 'traintop_ram_limit_bytes', host)).toBe(16 * GIB);
		expect(valueAt(parsed, 'traintop_host_ram_used_percent', host)).toBe(42);
		expect(valueAt(parsed, 'traintop_swap_used_percent', host)).toBe(10);
	});

	test("the host's CPU when it was read; absent when it was not", async () => {
		const cpu = {percent: 37.5, cores: 2, load: null};
		expect(valueAt(await scrape({n: {...snapshot, cpu}}), 'traintop_cpu_used_percent')).toBe(37.5);
		const first = await scrape({n: {...snapshot, cpu: {...cpu, percent: null}}});
		expect(series(first, 'traintop_cpu_used_percent')).toEqual([]);
	});

	test("each judged metric's level and threshold, by the Monitor's metric names", () => {
		const levels = series(parsed, 'traintop_metric_level').map(s => s.labels.metric);
		expect(levels.sort()).toEqual(Object.keys(snapshot.metrics).sort());
		expect(levels).toEqual(expect.arrayContaining(['ram', 'swap', 'gpu0']));
		expect(valueAt(parsed, 'traintop_metric_level', {metric: 'ram'})).toBe(0);
		expect(valueAt(parsed, 'traintop_metric_threshold_percent', {metric: 'ram'})).toBe(85);
	});

	test('the H200: memory, utilisation, power, temperature, throttle reasons, ECC as nvidia-smi gave them', () => {
		const [reading] = h200Readings('h200-health-busy', 10);
		const gpu = {gpu: '0', uuid: reading!.uuid!};
		expect(reading!.uuid).toMatch(/^GPU-/);
		expect(valueAt(parsed, 'traintop_gpu_memory_used_bytes', gpu)).toBe(reading!.memoryUsedBytes);
		expect(valueAt(parsed, 'traintop_gpu_memory_total_bytes', gpu)).toBe(reading!.memoryTotalBytes);
		expect(valueAt(parsed, 'traintop_gpu_memory_used_percent', gpu)).toBeCloseTo(reading!.memoryPercent!, 9);
		expect(valueAt(parsed, 'traintop_gpu_utilization_percent', gpu)).toBe(reading!.utilizationPercent);
		expect(valueAt(parsed, 'traintop_gpu_power_watts', gpu)).toBe(reading!.powerDrawW);
		expect(valueAt(parsed, 'traintop_gpu_temperature_celsius', gpu)).toBe(reading!.temperatureC);
		const health = reading!.health!;
		const throttle = series(parsed, 'traintop_gpu_throttle', gpu);
		expect(throttle.map(s => s.labels.reason).sort()).toEqual([
			'hw_power_brake_slowdown',
			'hw_slowdown',
			'hw_thermal_slowdown',
			'sw_power_cap',
			'sw_thermal_slowdown',
		]);
		for (const s of throttle) expect(s.value).toBe(health.throttle!.includes(s.labels.reason as never) ? 1 : 0);
		expect(valueAt(parsed, 'traintop_gpu_ecc_errors', {...gpu, kind: 'uncorrected'})).toBe(health.eccUncorrected);
		expect(valueAt(parsed, 'traintop_gpu_ecc_errors', {...gpu, kind: 'corrected'})).toBe(health.eccCorrected);
		// The H200 remaps rows: nvidia-smi has no retired-pages figure for it, and none is written.
		expect(health.retiredPagesPending).toBeNull();
		expect(series(parsed, 'traintop_gpu_retired_pages_pending')).toEqual([]);
		expect(valueAt(parsed, 'traintop_gpu_remapped_rows_pending', gpu)).toBe(Number(health.remappedRowsPending));
	});

	test('the job and each rank with its workers, by RSS and PSS; the growing rank is 1', () => {
		const job = {host: 'node-7', job: 'torchrun:9999'};
		const memory = snapshot.jobMemory![0]!;
		expect(valueAt(parsed, 'traintop_job_rss_bytes', job)).toBe(memory.rssBytes);
		expect(valueAt(parsed, 'traintop_job_pss_bytes', job)).toBe(memory.pssBytes);
		expect(valueAt(parsed, 'traintop_job_gpu_memory_bytes', job)).toBe(memory.gpuBytes);
		expect(valueAt(parsed, 'traintop_job_ranks', job)).toBe(2);
		// The ranks pane's RSS column: the rank's own 3.1 GiB and its two workers' 2 GiB each.
		expect(valueAt(parsed, 'traintop_rank_rss_bytes', {...job, rank: '1'})).toBeCloseTo(7.1 * GIB, 0);
		expect(valueAt(parsed, 'traintop_rank_pss_bytes', {...job, rank: '1'})).toBe(3.5 * GIB);
		expect(valueAt(parsed, 'traintop_rank_gpu_memory_bytes', {...job, rank: '0'})).toBe(12 * GIB);
		expect(valueAt(parsed, 'traintop_rank_memory_growing', {...job, rank: '0'})).toBe(0);
		expect(valueAt(parsed, 'traintop_rank_memory_growing', {...job, rank: '1'})).toBe(1);
		expect(valueAt(parsed, 'traintop_exporter_truncated')).toBe(0);
	});

	test("the run dir's checkpoints, with the run dir's job; the age counted at the scrape", () => {
		const dir = {host: 'node-7', job: 'torchrun:9999', run_dir: '/runs/exp1'};
		expect(valueAt(parsed, 'traintop_checkpoint_last_save_age_seconds', dir)).toBe(1805);
		expect(valueAt(parsed, 'traintop_checkpoint_last_save_duration_seconds', dir)).toBe(
			lastSaveDuration(checkpointIndex())!.seconds,
		);
		expect(valueAt(parsed, 'traintop_checkpoint_saves_until_full', dir)).toBe(40);
		expect(valueAt(parsed, 'traintop_checkpoint_overdue', dir)).toBe(0);
		expect(valueAt(parsed, 'traintop_checkpoints', {...dir, status: 'complete'})).toBe(4);
		expect(valueAt(parsed, 'traintop_checkpoints', {...dir, status: 'partial'})).toBe(1);
	});

	test('readiness and progress as state sets: 1 for the verdict, 0 for the others', () => {
		const job = {host: 'node-7', job: 'torchrun:9999'};
		const readiness = Object.fromEntries(
			series(parsed, 'traintop_job_readiness', job).map(s => [s.labels.verdict, s.value]),
		);
		expect(readiness).toEqual({ready: 0, 'at-risk': 1, 'not-ready': 0, unknown: 0});
		const progress = Object.fromEntries(
			series(parsed, 'traintop_job_progress', job).map(s => [s.labels.verdict, s.value]),
		);
		expect(progress).toEqual({progressing: 0, stalled: 0, hung: 1, unknown: 0});
	});

	test("traintop's own: snapshot age, the GPU reader, the version; no scrape duration before a first scrape", async () => {
		expect(valueAt(parsed, 'traintop_snapshot_age_seconds', host)).toBe(5);
		expect(valueAt(parsed, 'traintop_gpu_reader_up', host)).toBe(1);
		expect(valueAt(parsed, 'traintop_gpu_reader_state', {state: 'ok'})).toBe(1);
		expect(series(parsed, 'traintop_gpu_reader_state').filter(s => s.value === 0)).toHaveLength(3);
		expect(valueAt(parsed, 'traintop_build_info', {version: '0.1.0'})).toBe(1);
		expect(series(parsed, 'traintop_scrape_duration_seconds')).toEqual([]);
		expect(series(parsed, 'traintop_node_up')).toEqual([]);
		const second = await scrape({'node-7': snapshot}, {previousScrapeS: 0.0004});
		expect(valueAt(second, 'traintop_scrape_duration_seconds')).toBe(0.0004);
	});
});

describe('unknown is absent, never 0', () => {
	test('no memory reading, no GPU reader, no swap: no such series, the reader down', async () => {
		const base = await monitorSnapshot(hostMemory(30), []);
		const parsed = await scrape({n: {...base, memory: null}});
		for (const name of ['traintop_ram_used_percent', 'traintop_host_ram_used_percent', 'traintop_swap_used_percent'])
			expect(series(parsed, name)).toEqual([]);
		expect(series(parsed, 'traintop_gpu_memory_used_bytes')).toEqual([]);
		expect(valueAt(parsed, 'traintop_gpu_reader_up')).toBe(0);
		expect(valueAt(parsed, 'traintop_gpu_reader_state', {state: 'absent'})).toBe(1);
		const noSwap = await scrape({n: base});
		expect(valueAt(noSwap, 'traintop_host_ram_used_percent')).toBe(30);
		expect(series(noSwap, 'traintop_swap_used_percent')).toEqual([]);
	});

	test('a GPU field nvidia-smi marked N/A, a rank without PSS, a run dir without saves', async () => {
		const [reading] = h200Readings('h200-health-busy', 10);
		const full = await fullSnapshot();
		const gpu = {...reading!, memoryUsedBytes: null, memoryPercent: null, powerDrawW: null, health: null};
		const memory = full.jobMemory![0]!;
		const parsed = await scrape({
			n: {
				...full,
				gpu: {status: 'ok', gpus: [gpu], sampledAt: NOW, warning: null},
				jobMemory: [{...memory, pssBytes: null, ranks: memory.ranks.map(r => ({...r, pssBytes: null})), trends: []}],
				checkpoints: checkpointIndex({checkpoints: [], lastSave: null}),
			},
		});
		expect(series(parsed, 'traintop_gpu_memory_used_bytes')).toEqual([]);
		expect(series(parsed, 'traintop_gpu_power_watts')).toEqual([]);
		expect(series(parsed, 'traintop_gpu_throttle')).toEqual([]);
		expect(series(parsed, 'traintop_gpu_ecc_errors')).toEqual([]);
		expect(series(parsed, 'traintop_gpu_memory_total_bytes')).toHaveLength(1);
		expect(series(parsed, 'traintop_job_pss_bytes')).toEqual([]);
		expect(series(parsed, 'traintop_rank_pss_bytes')).toEqual([]);
		expect(series(parsed, 'traintop_rank_memory_growing')).toEqual([]);
		expect(series(parsed, 'traintop_rank_rss_bytes')).toHaveLength(2);
		expect(series(parsed, 'traintop_checkpoint_last_save_age_seconds')).toEqual([]);
		expect(series(parsed, 'traintop_checkpoint_overdue')).toEqual([]);
		expect(valueAt(parsed, 'traintop_checkpoints', {status: 'complete'})).toBe(0);
	});
});

describe('many nodes', () => {
	test('every node-scoped series carries node and host; each link is traintop_node_up', async () => {
		const a = await fullSnapshot();
		const b = {...(await monitorSnapshot(hostMemory(70), [])), host: 'gpu-b.cluster'};
		const links = new Map([
			['a', true],
			['b', true],
			['c', false],
		]);
		const parsed = await scrape({a, b}, {many: true, links});
		expect(valueAt(parsed, 'traintop_ram_used_percent', {node: 'a', host: 'node-7'})).toBe(50);
		expect(valueAt(parsed, 'traintop_ram_used_percent', {node: 'b', host: 'gpu-b.cluster'})).toBe(70);
		expect(valueAt(parsed, 'traintop_rank_rss_bytes', {node: 'a', job: 'torchrun:9999', rank: '0'})).toBeGreaterThan(0);
		const scoped = new Set(FAMILIES.filter(f => f.node).map(f => f.name));
		for (const sample of parsed.samples.filter(s => scoped.has(s.name as never)))
			expect(['a', 'b']).toContain(sample.labels.node);
		expect(series(parsed, 'traintop_node_up').map(s => [s.labels.node, s.value])).toEqual([
			['a', 1],
			['b', 1],
			['c', 0],
		]);
		expect(series(parsed, 'traintop_build_info')[0]!.labels).toEqual({version: '0.1.0'});
	});
});

describe('the bound and the labels', () => {
	test('beyond the rank bound the per-rank families are left out, and traintop_exporter_truncated says so', async () => {
		const parsed = await scrape({n: await fullSnapshot()}, {maxRankSeries: 1});
		for (const name of ['traintop_rank_rss_bytes', 'traintop_rank_pss_bytes', 'traintop_rank_memory_growing'])
			expect(series(parsed, name)).toEqual([]);
		expect(series(parsed, 'traintop_job_rss_bytes')).toHaveLength(1);
		expect(valueAt(parsed, 'traintop_exporter_truncated')).toBe(1);
	});

	test('beyond the series bound the nodes after are left out, each node whole; traintop_node_up stays', async () => {
		const full = await fullSnapshot();
		const links = new Map([
			['a', true],
			['b', true],
		]);
		const parsed = await scrape({a: full, b: full}, {many: true, links, maxSeries: 1});
		const scoped = parsed.samples.filter(s => s.labels.host !== undefined);
		const nodes = new Set(scoped.map(s => s.labels.node));
		expect(nodes).toEqual(new Set(['a']));
		expect(series(parsed, 'traintop_node_up')).toHaveLength(2);
		expect(valueAt(parsed, 'traintop_exporter_truncated')).toBe(1);
		expect(valueAt(parsed, 'traintop_ram_used_percent', {node: 'a'})).toBe(50);
	});

	test('label values are written as they are, escaped: quotes, backslashes, line breaks come back', async () => {
		const full = await fullSnapshot();
		const odd = 'job "a"\\b\nc';
		const parsed = await scrape({n: {...full, jobMemory: full.jobMemory!.map(j => ({...j, job: odd}))}});
		expect(valueAt(parsed, 'traintop_job_ranks', {job: odd})).toBe(2);
	});
});
