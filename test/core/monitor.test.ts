import {describe, expect, test, vi} from 'vitest';
import {Monitor, type MonitorThresholds} from '../../src/core/monitor.js';
import type {RankSet, Snapshot} from '../../src/core/types.js';
import {gpu, hostMemory, ScriptedSources} from '../helpers/snapshots.js';

const thresholds: MonitorThresholds = {
	ram: {critical: 85, warnMargin: 10, hysteresis: 2},
	swap: {critical: 50, warnMargin: 10, hysteresis: 2},
	gpu: {critical: 90, warnMargin: 10, hysteresis: 2},
};

function setup(historyLength = 5) {
	const sources = new ScriptedSources();
	let now = 1_000_000;
	const monitor = new Monitor({
		sources,
		thresholds,
		intervalMs: 1000,
		host: 'node-a',
		historyLength,
		now: () => now,
	});
	const advance = (ms = 1000) => {
		now += ms;
	};
	return {sources, monitor, advance};
}

describe('Monitor', () => {
	test('a tick reads every source into one snapshot with a level per metric', async () => {
		const {sources, monitor} = setup();
		sources.memory = hostMemory(80, 55);
		sources.setGpus(gpu(0, 50), gpu(1, 95));
		const snapshot = await monitor.tick();
		expect(snapshot.host).toBe('node-a');
		expect(snapshot.tick).toBe(1);
		expect(snapshot.metrics.ram).toMatchObject({value: 80, level: 'warn', threshold: 85, peak: 80});
		expect(snapshot.metrics.swap).toMatchObject({value: 55, level: 'critical', threshold: 50});
		expect(snapshot.metrics.gpu0).toMatchObject({value: 50, level: 'ok', threshold: 90});
		expect(snapshot.metrics.gpu1).toMatchObject({value: 95, level: 'critical'});
		expect(snapshot.newAlerts.map(a => `${a.metric}:${a.to}`).sort()).toEqual([
			'gpu1:critical',
			'ram:warn',
			'swap:critical',
		]);
		expect(monitor.getSnapshot()).toBe(snapshot);
	});

	test('no swap means no swap metric, not 0 %', async () => {
		const {sources, monitor} = setup();
		sources.memory = hostMemory(10, null);
		const snapshot = await monitor.tick();
		expect(snapshot.memory?.swap).toBeNull();
		expect(snapshot.metrics.swap).toBeUndefined();
	});

	test('alerts appear only on the tick where the level changes, and are kept in recentAlerts', async () => {
		const {sources, monitor, advance} = setup();
		const ramSeries = [70, 86, 88, 84, 82, 60];
		const changes: string[][] = [];
		for (const percent of ramSeries) {
			sources.memory = hostMemory(percent);
			const s = await monitor.tick();
			changes.push(s.newAlerts.map(a => `${a.from}→${a.to}`));
			advance();
		}
		expect(changes).toEqual([[], ['ok→critical'], [], [], ['critical→warn'], ['warn→ok']]);
		expect(monitor.getSnapshot()?.recentAlerts).toHaveLength(3);
	});

	test('history is a bounded ring per metric, and the peak survives the ring', async () => {
		const {sources, monitor, advance} = setup(3);
		for (const percent of [10, 90, 20, 30, 40]) {
			sources.memory = hostMemory(percent);
			await monitor.tick();
			advance();
		}
		expect(monitor.getHistory('ram').map(p => p.value)).toEqual([20, 30, 40]);
		expect(monitor.getSnapshot()?.metrics.ram?.peak).toBe(90);
		expect(monitor.getHistory('gpu7')).toEqual([]);
	});

	test('a failed memory read is reported and keeps the last judgement, marked stale', async () => {
		const {sources, monitor} = setup();
		sources.memory = hostMemory(90, 60);
		await monitor.tick();
		sources.memory = new Error('EIO reading /proc/meminfo');
		let s = await monitor.tick();
		expect(s.memoryError).toBe('EIO reading /proc/meminfo');
		expect(s.memory?.ram.percent).toBe(90);
		expect(s.newAlerts).toEqual([]);
		// Not dropped (a view would fall back to "ok" with no threshold at 90 %): the last level, marked.
		expect(s.metrics.ram).toEqual({value: 90, level: 'critical', peak: 90, threshold: 85, stale: true});
		expect(s.metrics.swap).toMatchObject({value: 60, level: 'critical', threshold: 50, stale: true});
		s = await monitor.tick();
		expect(s.metrics.ram).toMatchObject({level: 'critical', stale: true});
		sources.memory = hostMemory(91);
		s = await monitor.tick();
		expect(s.metrics.ram).toEqual({value: 91, level: 'critical', peak: 91, threshold: 85});
		expect(s.metrics.ram?.stale).toBeUndefined();
	});

	test('a memory read that fails before the first reading has nothing to carry', async () => {
		const {sources, monitor} = setup();
		sources.memory = new Error('EACCES /proc/meminfo');
		const s = await monitor.tick();
		expect(s.memory).toBeNull();
		expect(s.metrics.ram).toBeUndefined();
	});

	test('an absent or failing GPU reader is carried in the snapshot with no GPU metrics', async () => {
		const {sources, monitor} = setup();
		let s = await monitor.tick();
		expect(s.gpu).toEqual({status: 'absent', reason: 'nvidia-smi not found on PATH'});
		expect(Object.keys(s.metrics)).toEqual(['ram']);
		sources.gpuState = {status: 'error', message: 'NVIDIA-SMI has failed (exit 9)', retryAt: 5000};
		s = await monitor.tick();
		expect(s.gpu.status).toBe('error');
		expect(s.gpuProcesses.processes).toEqual([]);
	});

	test('per-process GPU memory is carried while the GPU reader is healthy', async () => {
		const {sources, monitor} = setup();
		sources.setGpus(gpu(0, 30));
		sources.processes = {processes: [{pid: 4242, gpuUuid: 'GPU-0', usedBytes: 1024}], sampledAt: 1, error: null};
		const s = await monitor.tick();
		expect(s.gpuProcesses.processes).toEqual([{pid: 4242, gpuUuid: 'GPU-0', usedBytes: 1024}]);
	});

	test('a GPU with unknown memory (MIG, GB10) has a null value and keeps level ok', async () => {
		const {sources, monitor} = setup();
		sources.setGpus(gpu(0, null));
		const s = await monitor.tick();
		expect(s.metrics.gpu0).toMatchObject({value: null, level: 'ok', peak: null});
	});

	test('ranks are scanned on their own cadence, given the GPU process table, and kept when a scan fails', async () => {
		const sources = new ScriptedSources();
		let now = 0;
		const scans: number[] = [];
		let fail = false;
		const rankSet = (n: number): RankSet => ({
			ranks: [],
			jobs: [],
			launcher: null,
			departed: [],
			ended: [],
			runDirMatch: null,
			sampledAt: n,
		});
		sources.setGpus(gpu(0, 10));
		sources.processes = {processes: [{pid: 7, gpuUuid: 'GPU-0', usedBytes: 1}], sampledAt: 1, error: null};
		const seenTables: unknown[] = [];
		const monitor = new Monitor({
			sources: Object.assign(sources, {
				async readRanks(table: unknown) {
					seenTables.push(table);
					scans.push(now);
					if (fail) throw new Error('EMFILE: too many open files');
					return rankSet(now);
				},
			}),
			thresholds,
			intervalMs: 1000,
			ranksIntervalMs: 2000,
			host: 'h',
			now: () => now,
		});
		const ranksAt = async (t: number) => {
			now = t;
			const s = await monitor.tick();
			return [s.ranks?.sampledAt ?? null, s.ranksError];
		};
		expect(await ranksAt(0)).toEqual([0, null]);
		expect(await ranksAt(1000)).toEqual([0, null]);
		expect(await ranksAt(2000)).toEqual([2000, null]);
		fail = true;
		expect(await ranksAt(4100)).toEqual([2000, 'EMFILE: too many open files']);
		expect(scans).toEqual([0, 2000, 4100]);
		expect(seenTables[0]).toEqual(sources.processes);
	});

	test('a checkpoint change is published at once, not at the next interval', async () => {
		vi.useFakeTimers({toFake: ['setInterval', 'clearInterval']});
		try {
			const sources = new ScriptedSources();
			let index: {runDir: string} | null = null;
			let notify = () => {};
			const checkpoints = {
				getIndex: () => index as never,
				subscribe: (listener: () => void) => {
					notify = listener;
					return () => {
						notify = () => {};
					};
				},
			};
			const monitor = new Monitor({
				sources: Object.assign(sources, {checkpoints}),
				thresholds,
				intervalMs: 1000,
				host: 'h',
			});
			const seen: unknown[] = [];
			monitor.subscribe(s => seen.push(s.checkpoints));
			const settle = () => new Promise(resolve => setImmediate(resolve));
			monitor.start();
			await settle();
			expect(seen).toEqual([null]);
			index = {runDir: '/run'};
			notify();
			await settle();
			// No interval has passed (timers are fake and were not advanced): the change itself ticked.
			expect(seen).toEqual([null, {runDir: '/run'}]);
			monitor.stop();
			notify();
			await settle();
			expect(seen).toHaveLength(2);
		} finally {
			vi.useRealTimers();
		}
	});

	test('subscribers get every snapshot until they unsubscribe; snapshots are new objects', async () => {
		const {monitor} = setup();
		const seen: Snapshot[] = [];
		const unsubscribe = monitor.subscribe(s => seen.push(s));
		const first = await monitor.tick();
		await monitor.tick();
		unsubscribe();
		await monitor.tick();
		expect(seen).toHaveLength(2);
		expect(seen[0]).toBe(first);
		expect(seen[1]).not.toBe(first);
	});

	test('concurrent ticks share the round in flight instead of piling up', async () => {
		const {sources, monitor} = setup();
		let reads = 0;
		let release!: () => void;
		const gate = new Promise<void>(resolve => {
			release = resolve;
		});
		sources.readMemory = async () => {
			reads++;
			await gate;
			return hostMemory(10);
		};
		const a = monitor.tick();
		const b = monitor.tick();
		release();
		expect(await a).toBe(await b);
		expect(reads).toBe(1);
	});

	test('start() ticks at once and then on the interval; stop() ends it', async () => {
		// Only the interval timer is faked: the sources' promises still resolve on the real queue.
		vi.useFakeTimers({toFake: ['setInterval', 'clearInterval']});
		try {
			const sources = new ScriptedSources();
			const monitor = new Monitor({sources, thresholds, intervalMs: 1000, host: 'h'});
			const ticks: number[] = [];
			monitor.subscribe(s => ticks.push(s.tick));
			const settle = () => new Promise(resolve => setImmediate(resolve));
			monitor.start();
			await settle();
			expect(ticks).toEqual([1]);
			vi.advanceTimersByTime(999);
			await settle();
			expect(ticks).toEqual([1]);
			vi.advanceTimersByTime(1);
			await settle();
			vi.advanceTimersByTime(1000);
			await settle();
			expect(ticks).toEqual([1, 2, 3]);
			monitor.stop();
			vi.advanceTimersByTime(5000);
			await settle();
			expect(ticks).toEqual([1, 2, 3]);
		} finally {
			vi.useRealTimers();
		}
	});
});
