import {describe, expect, test} from 'vitest';
import type {Alert, MetricStatus} from '../../src/core/types.js';
import {
	describeCheckpointChanges,
	describeRankChanges,
	formatAlertLine,
	formatGpuStateLine,
	formatStatusLine,
} from '../../src/headless/format.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {checkpoint, checkpointIndex, MIB, NOW} from '../helpers/checkpoint-data.js';

const at = new Date(2026, 10, 22, 9, 5, 7).getTime();

function status(value: number, level: MetricStatus['level'], threshold = 85): MetricStatus {
	return {value, level, peak: value, threshold};
}

const base: LogRecord = {
	timestamp: new Date(at).toISOString(),
	host: 'n1',
	interval_s: 30,
	samples: 30,
	memory: {total_gb: 64, used_gb: 27.6, percent: 43.1, available_gb: 36.4, peak_percent: 47.92, peak_used_gb: 30.7},
	swap: null,
	gpu: null,
	gpus: [],
	gpu_status: 'absent',
	alerts: [],
};

describe('formatStatusLine', () => {
	test('local time, each metric with its level, a window peak only when above the last value', () => {
		const line = formatStatusLine(base, {ram: status(43.1, 'ok')});
		expect(line).toBe('2026-11-22 09:05:07  ram 43.1% ok (peak 47.9%)  swap none  gpu absent');
	});

	test('levels needing attention are upper case; every GPU gets its own field; unknown memory is n/a', () => {
		const record: LogRecord = {
			...base,
			memory: {...base.memory!, percent: 86.2, peak_percent: 86.2},
			swap: {total_gb: 8, used_gb: 1, percent: 12.5, peak_percent: 12.5},
			gpus: [
				{
					index: 0,
					uuid: 'a',
					name: 'H100',
					memory_used_gb: 70,
					memory_total_gb: 80,
					memory_percent: 87.5,
					peak_memory_percent: 91,
					utilization_percent: 99,
				},
				{
					index: 1,
					uuid: 'b',
					name: 'H100',
					memory_used_gb: null,
					memory_total_gb: null,
					memory_percent: null,
					peak_memory_percent: null,
					utilization_percent: null,
				},
			],
			gpu_status: 'ok',
		};
		const line = formatStatusLine(record, {
			ram: status(86.2, 'critical'),
			swap: status(12.5, 'ok', 50),
			gpu0: status(87.5, 'critical', 90),
			gpu1: {value: null, level: 'ok', peak: null, threshold: 90},
		});
		expect(line).toBe('2026-11-22 09:05:07  ram 86.2% CRIT  swap 12.5% ok  gpu0 87.5% CRIT (peak 91.0%)  gpu1 n/a ok');
	});
});

describe('formatAlertLine', () => {
	const alert = (from: Alert['from'], to: Alert['to'], value: number): Alert => ({
		time: at,
		metric: 'ram',
		value,
		threshold: 85,
		from,
		to,
	});
	test.each([
		[alert('ok', 'critical', 86.24), '2026-11-22 09:05:07 CRIT ram at 86.2%: at or above the 85% threshold (was ok)'],
		[alert('ok', 'warn', 76), '2026-11-22 09:05:07 WARN ram at 76.0%: within 10 points of the 85% threshold (was ok)'],
		[
			alert('critical', 'warn', 82.9),
			'2026-11-22 09:05:07 WARN ram down to 82.9%: back under the 85% threshold (was critical)',
		],
		[alert('warn', 'ok', 72.5), '2026-11-22 09:05:07 OK   ram down to 72.5%: back under the 75% warn line (was warn)'],
	])('%o', (a, expected) => {
		expect(formatAlertLine(a, 10)).toBe(expected);
	});

	test('thresholds are written as the TUI writes them: no float noise, at most one decimal', () => {
		// 85.1 − 0.7 is 84.39999999999999 in floating point.
		expect(formatAlertLine({...alert('warn', 'ok', 80), threshold: 85.1}, 0.7)).toBe(
			'2026-11-22 09:05:07 OK   ram down to 80.0%: back under the 84.4% warn line (was warn)',
		);
		expect(formatAlertLine({...alert('ok', 'critical', 90), threshold: 87.56}, 10)).toBe(
			'2026-11-22 09:05:07 CRIT ram at 90.0%: at or above the 87.6% threshold (was ok)',
		);
	});
});

describe('describeCheckpointChanges', () => {
	const before = checkpointIndex();
	test('a new complete checkpoint, its size as every view writes sizes', () => {
		const saved = checkpoint(1600, 0, {bytes: 1536 * MIB});
		const small = checkpoint(1700, 0, {kind: 'manual', bytes: 256 * 1024, step: null});
		const after = checkpointIndex({checkpoints: [...before.checkpoints, saved, small]});
		expect(describeCheckpointChanges(before, after)).toEqual([
			'checkpoint: checkpoint_step_1600 saved (periodic, step 1600, 1.5 GiB)',
			'checkpoint: checkpoint_step_1700 saved (manual, 256 KiB)',
		]);
	});

	test('a save that became overdue, with ages as the checkpoints command writes them', () => {
		const overdue = checkpointIndex({
			lastSave: {time: NOW - 90 * 60_000, ageS: 5400, medianIntervalS: 900, overdue: true},
		});
		expect(describeCheckpointChanges(before, overdue)).toEqual([
			'checkpoint: OVERDUE — last save 1.5 h ago, over 1.5 × the usual 15 min',
		]);
		expect(describeCheckpointChanges(overdue, overdue)).toEqual([]);
		expect(describeCheckpointChanges(null, overdue)).toEqual([]);
	});
});

describe('formatGpuStateLine', () => {
	test('each state says what it means', () => {
		expect(formatGpuStateLine({status: 'starting'}, 0)).toBeNull();
		expect(formatGpuStateLine({status: 'absent', reason: 'nvidia-smi not found on PATH'}, 0)).toBe(
			'GPU: not monitored — nvidia-smi not found on PATH',
		);
		expect(
			formatGpuStateLine(
				{status: 'error', message: 'Failed to initialize NVML: Unknown Error (exit 255)', retryAt: 4000},
				1000,
			),
		).toBe('GPU: nvidia-smi failed — Failed to initialize NVML: Unknown Error (exit 255); retrying in 3 s');
		const ok = formatGpuStateLine(
			{
				status: 'ok',
				sampledAt: 0,
				warning: 'WARNING: infoROM is corrupted at gpu 0000:0B:00.0',
				gpus: [
					{
						index: 0,
						uuid: null,
						name: 'NVIDIA H100 80GB HBM3',
						memoryTotalBytes: 1,
						memoryUsedBytes: 0,
						memoryPercent: 0,
						utilizationPercent: 0,
					},
				],
			},
			0,
		);
		expect(ok).toBe(
			'GPU: 1 device, 1 × NVIDIA H100 80GB HBM3 — nvidia-smi warns: WARNING: infoROM is corrupted at gpu 0000:0B:00.0',
		);
	});

	test('identical devices are counted, mixed ones listed', () => {
		const device = (index: number, name: string | null) => ({
			index,
			uuid: null,
			name,
			memoryTotalBytes: 1,
			memoryUsedBytes: 0,
			memoryPercent: 0,
			utilizationPercent: 0,
		});
		const state = (...gpus: ReturnType<typeof device>[]) => ({
			status: 'ok' as const,
			sampledAt: 0,
			warning: null,
			gpus,
		});
		expect(formatGpuStateLine(state(...[0, 1, 2, 3].map(i => device(i, 'NVIDIA H200'))), 0)).toBe(
			'GPU: 4 devices, 4 × NVIDIA H200',
		);
		expect(formatGpuStateLine(state(device(0, 'GeForce GTX 1080 Ti'), device(1, null)), 0)).toBe(
			'GPU: 2 devices: 0: GeForce GTX 1080 Ti, 1: unknown device',
		);
	});
});

describe('describeRankChanges', () => {
	const rank = (n: number, pid: number, stalled = false) =>
		({
			rank: n,
			pid,
			startTime: pid * 3,
			stalled,
			state: 'S',
		}) as unknown as import('../../src/core/types.js').RankProcess;
	const set = (...ranks: ReturnType<typeof rank>[]) => ({
		ranks,
		launcher: {pid: 10, startTime: 1, cmd: 'torchrun'},
		sampledAt: 0,
	});

	test('found, gone, stalled and recovered; nothing when nothing changed', () => {
		expect(describeRankChanges(null, set(rank(0, 100), rank(1, 101)))).toEqual([
			'ranks: rank 0 (pid 100), rank 1 (pid 101) found; launcher pid 10',
		]);
		expect(describeRankChanges(set(rank(0, 100), rank(1, 101)), set(rank(0, 100), rank(1, 101)))).toEqual([]);
		expect(describeRankChanges(set(rank(0, 100), rank(1, 101)), set(rank(0, 100, true)))).toEqual([
			'ranks: rank 1 (pid 101) is gone',
			'ranks: rank 0 (pid 100) looks stalled: state S but no CPU time lately',
		]);
		expect(describeRankChanges(set(rank(0, 100, true)), set(rank(0, 100)))).toEqual([
			'ranks: rank 0 (pid 100) is using CPU again',
		]);
	});
});
