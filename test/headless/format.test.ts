import {describe, expect, test} from 'vitest';
import type {Alert, JobEvent, MetricStatus} from '../../src/core/types.js';
import {
	describeRanksFound,
	eventRecord,
	formatAlertLine,
	formatEventLine,
	formatGpuStateLine,
	formatStatusLine,
} from '../../src/headless/format.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {job, rankSet} from '../core/job-data.js';

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
		expect(line).toBe(
			'2026-11-22 09:05:07  ram 86.2% CRIT  swap 12.5% ok  gpu0 87.5% CRIT (peak 91.0%) util 99%  gpu1 n/a ok',
		);
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

describe('describeRanksFound', () => {
	test('ranks first seen, with the launcher; nothing when none is new', () => {
		const two = rankSet([job('torchrun:4200', 2)]);
		expect(describeRanksFound(null, two)).toBe('ranks: rank 0 (pid 4201), rank 1 (pid 4202) found; launcher pid 4200');
		expect(describeRanksFound(two, rankSet([job('torchrun:4200', 2)]))).toBeNull();
		// A restarted rank is a new process (same pid, another start time): found again.
		const restarted = rankSet([job('torchrun:4200', 2, n => (n === 1 ? {startTime: 1} : {}))]);
		expect(describeRanksFound(two, restarted)).toBe('ranks: rank 1 (pid 4202) found; launcher pid 4200');
	});
});

describe('events', () => {
	const ended: JobEvent = {
		time: at,
		kind: 'job-ended',
		job: 'torchrun:4200',
		rank: null,
		pid: 4200,
		level: 'warn',
		text: 'job torchrun:4200 ended, exit 99 — saved for requeue',
		exit: {code: 99, signal: null},
	};
	const saved: JobEvent = {
		time: at,
		kind: 'save-seen',
		job: null,
		rank: null,
		pid: null,
		level: 'ok',
		text: 'saved checkpoint_step_1600 (periodic, step 1600, 512 MiB)',
		checkpoint: 'checkpoint_step_1600',
	};

	test('a line each, the level word only where it needs attention', () => {
		expect(formatEventLine(ended)).toBe(
			'2026-11-22 09:05:07 WARN job torchrun:4200 ended, exit 99 — saved for requeue',
		);
		expect(formatEventLine({...ended, level: 'critical', text: 'job torchrun:4200 ended, exit 1'})).toBe(
			'2026-11-22 09:05:07 CRIT job torchrun:4200 ended, exit 1',
		);
		expect(formatEventLine(saved)).toBe(
			'2026-11-22 09:05:07 saved checkpoint_step_1600 (periodic, step 1600, 512 MiB)',
		);
	});

	test('--json: snake_case keys in a fixed order, exit null where there is none, checkpoint only where there is one', () => {
		expect(JSON.stringify(eventRecord(ended))).toBe(
			JSON.stringify({
				event: 'job-ended',
				time: new Date(at).toISOString(),
				job: 'torchrun:4200',
				rank: null,
				pid: 4200,
				level: 'warn',
				text: 'job torchrun:4200 ended, exit 99 — saved for requeue',
				exit: {code: 99, signal: null},
			}),
		);
		expect(eventRecord(saved)).toEqual({
			event: 'save-seen',
			time: new Date(at).toISOString(),
			job: null,
			rank: null,
			pid: null,
			level: 'ok',
			text: 'saved checkpoint_step_1600 (periodic, step 1600, 512 MiB)',
			exit: null,
			checkpoint: 'checkpoint_step_1600',
		});
		expect(eventRecord({...ended, kind: 'rank-exited', exit: null})).toMatchObject({event: 'rank-exited', exit: null});
		expect('checkpoint' in eventRecord(ended)).toBe(false);
	});
});
