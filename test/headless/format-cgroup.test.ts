import {expect, test} from 'vitest';
import type {MetricStatus} from '../../src/core/types.js';
import {formatStatusLine} from '../../src/headless/format.js';
import type {LogRecord} from '../../src/memlog/record.js';

const at = new Date(2026, 10, 22, 9, 5, 7).getTime();

const record: LogRecord = {
	timestamp: new Date(at).toISOString(),
	host: 'n1',
	interval_s: 30,
	samples: 30,
	memory: {total_gb: 64, used_gb: 19.2, percent: 30, available_gb: 44.8, peak_percent: 31, peak_used_gb: 19.8},
	swap: null,
	gpu: null,
	gpus: [],
	gpu_status: 'absent',
	alerts: [],
};

const critical: MetricStatus = {value: 95, level: 'critical', peak: 97, threshold: 85};

test('the ram field is against the job cgroup limit, says so, and has the host beside it', () => {
	const cgroup = {scope: 'job', path: '/slurm/uid_0/job_42', version: 1, limit_gb: 16, used_gb: 15.2} as const;
	const limited: LogRecord = {
		...record,
		memory: {...record.memory!, cgroup: {...cgroup, percent: 95, peak_percent: 97}},
	};
	expect(formatStatusLine(limited, {ram: critical})).toBe(
		'2026-11-22 09:05:07  ram (job cgroup limit 16.0 GiB) 95.0% CRIT (peak 97.0%)  host 30.0% of 64.0 GiB  swap none  gpu absent',
	);
});

test('without a limit the line is as before', () => {
	expect(formatStatusLine(record, {ram: {value: 30, level: 'ok', peak: 31, threshold: 85}})).toBe(
		'2026-11-22 09:05:07  ram 30.0% ok (peak 31.0%)  swap none  gpu absent',
	);
});
