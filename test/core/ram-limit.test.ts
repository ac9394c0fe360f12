import {describe, expect, test} from 'vitest';
import {Monitor, type MonitorThresholds} from '../../src/core/monitor.js';
import {cgroupLimitWords, ramAgainstLimit} from '../../src/core/ram-limit.js';
import type {CgroupMemoryReading, HostMemory, RankSet} from '../../src/core/types.js';
import {LogWindow} from '../../src/memlog/window.js';
import {withCgroupLimit} from '../../src/system/memory.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';
import {job, rankSet} from './job-data.js';

const GIB = 1024 ** 3;
const thresholds: MonitorThresholds = {
	ram: {critical: 85, warnMargin: 10, hysteresis: 2},
	swap: {critical: 50, warnMargin: 10, hysteresis: 2},
	gpu: {critical: 90, warnMargin: 10, hysteresis: 2},
};

/** A job at `percent` of a 16 GiB cgroup limit. */
function limited(host: HostMemory, percent: number): HostMemory {
	const cgroup: CgroupMemoryReading = {
		scope: 'job',
		version: 2,
		path: '/system.slice/slurmstepd.scope/job_42',
		limitBytes: 16 * GIB,
		usedBytes: (16 * GIB * percent) / 100,
		percent,
	};
	return {...host, cgroup};
}

describe('the RAM metric against the job cgroup limit', () => {
	test('the Monitor judges ram against the limit (95 % of it is critical while the host is at 30 %)', async () => {
		const sources = new ScriptedSources();
		sources.memory = limited(hostMemory(30), 95);
		const monitor = new Monitor({sources, thresholds, intervalMs: 1000, host: 'n1', now: () => 0});
		const snapshot = await monitor.tick();
		expect(snapshot.metrics.ram).toMatchObject({value: 95, level: 'critical', threshold: 85});
		expect(snapshot.newAlerts[0]).toMatchObject({metric: 'ram', value: 95, to: 'critical'});
		// Without a limit, nothing changes: the host's percent.
		sources.memory = hostMemory(30);
		expect((await monitor.tick()).metrics.ram?.value).toBe(30);
	});

	test("readMemory gets the last rank scan: the ranks whose cgroup's limit counts", async () => {
		const seen: (RankSet | null | undefined)[] = [];
		const ranks = rankSet([job('torchrun:1', 2)]);
		const sources = Object.assign(new ScriptedSources(), {
			async readMemory(scan?: RankSet | null) {
				seen.push(scan);
				return hostMemory(10);
			},
			readRanks: async () => ranks,
		});
		const monitor = new Monitor({sources, thresholds, intervalMs: 1000, host: 'n1', now: () => 0});
		await monitor.tick();
		await monitor.tick();
		expect(seen).toEqual([null, ranks]);
	});

	test('gauge values and words: the limit when there is one, else the host', () => {
		expect(ramAgainstLimit(limited(hostMemory(30), 50))).toEqual({
			percent: 50,
			usedBytes: 8 * GIB,
			totalBytes: 16 * GIB,
		});
		expect(ramAgainstLimit(hostMemory(30))).toMatchObject({percent: 30, totalBytes: 64 * GIB});
		expect(cgroupLimitWords('job', 64 * GIB)).toBe('job cgroup limit 64.0 GiB');
		expect(cgroupLimitWords('traintop', 512 * 1024 ** 2)).toBe('cgroup limit 512 MiB');
	});

	test('a limit at or above the host RAM changes nothing: the host runs out first', () => {
		const host = hostMemory(30);
		const loose = limited(host, 10).cgroup!;
		expect(withCgroupLimit(host, {...loose, limitBytes: 64 * GIB})).toBe(host);
		expect(withCgroupLimit(host, null)).toBe(host);
		expect(withCgroupLimit(host, loose).cgroup).toBe(loose);
	});

	test('the memory log record adds memory.cgroup with the window peak, and keeps the host fields as they were', async () => {
		const window = new LogWindow(3000, 1000);
		const sources = new ScriptedSources();
		let now = 0;
		const monitor = new Monitor({sources, thresholds, intervalMs: 1000, host: 'n1', now: () => now});
		let record = null;
		for (const percent of [40, 90, 60]) {
			sources.memory = limited(hostMemory(30), percent);
			record = window.add(await monitor.tick());
			now += 1000;
		}
		expect(record).toBeNull();
		record = window.flush()!;
		expect(record.memory).toMatchObject({total_gb: 64, percent: 30, peak_percent: 30});
		expect(record.memory!.cgroup).toEqual({
			scope: 'job',
			path: '/system.slice/slurmstepd.scope/job_42',
			version: 2,
			limit_gb: 16,
			used_gb: 9.6,
			percent: 60,
			peak_percent: 90,
		});
		// Without a limit the record is as before: no cgroup key at all.
		sources.memory = hostMemory(30);
		const plain = window.add(await monitor.tick()) ?? window.flush();
		expect(plain!.memory).not.toHaveProperty('cgroup');
		expect(plain!.memory).toMatchObject({percent: 30});
	});
});
