import {describe, expect, test} from 'vitest';
import {Monitor, type MonitorThresholds} from '../../src/core/monitor.js';
import type {CheckpointIndex, RankSet} from '../../src/core/types.js';
import {checkpoint, checkpointIndex} from '../helpers/checkpoint-data.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';
import {ended, job, rankSet} from './job-data.js';

// What the history charts read from the Monitor: each metric over the whole run, the marks on the time
// axis (alerts, saves, exits) and each rank's RSS and CPU at every scan.

const thresholds: MonitorThresholds = {
	ram: {critical: 85, warnMargin: 10, hysteresis: 2},
	swap: {critical: 50, warnMargin: 10, hysteresis: 2},
	gpu: {critical: 90, warnMargin: 10, hysteresis: 2},
};
const ID = 'torchrun:4200';

function setup(historyLength = 3600) {
	const state: {ranks: RankSet; index: CheckpointIndex | null} = {ranks: rankSet([]), index: null};
	let now = 1_000_000;
	const sources = Object.assign(new ScriptedSources(), {
		checkpoints: {getIndex: () => state.index},
		async readRanks() {
			return state.ranks;
		},
	});
	const monitor = new Monitor({
		sources,
		thresholds,
		intervalMs: 1000,
		ranksIntervalMs: 0,
		historyLength,
		host: 'h',
		now: () => now,
	});
	const tick = async (ms = 1000) => {
		now += ms;
		return monitor.tick();
	};
	return {state, sources, monitor, tick};
}

describe('Monitor history for the charts', () => {
	test('a series reaches back to the first sample, past the samples kept as they came', async () => {
		const {sources, monitor, tick} = setup(60);
		for (let i = 0; i < 600; i++) {
			sources.memory = hostMemory(i === 30 ? 97 : 20);
			await tick();
		}
		const first = monitor.startedAt ?? 0;
		const all = monitor.getSeries('ram', first, Number.MAX_SAFE_INTEGER);
		expect(all[0]?.time).toBeLessThanOrEqual(first);
		// The early spike is kept in its bucket even though only the last 60 samples are kept as they came.
		expect(Math.max(...all.map(p => p.value))).toBe(97);
		expect(monitor.getHistory('ram')).toHaveLength(60);
		// A window inside the last minute is the samples themselves.
		const last = monitor.getSeries('ram', (monitor.getSnapshot()?.time ?? 0) - 10_000, Number.MAX_SAFE_INTEGER);
		expect(last).toHaveLength(11);
		expect(monitor.getSeries('gpu3', first, Number.MAX_SAFE_INTEGER)).toEqual([]);
	});

	test('level rises, saves and exits are marked; a return to ok is not', async () => {
		const {state, sources, monitor, tick} = setup();
		state.ranks = rankSet([job(ID, 1)], {runDirMatch: {jobs: [ID], evidence: 'command line'}});
		const index = checkpointIndex();
		state.index = index;
		sources.memory = hostMemory(20);
		const start = (await tick()).time;
		sources.memory = hostMemory(90);
		const critical = (await tick()).time;
		state.index = {...index, checkpoints: [...index.checkpoints, checkpoint(1600, 0)]};
		const saved = (await tick()).time;
		sources.memory = hostMemory(20);
		await tick();
		state.ranks = rankSet([], {ended: [ended(ID, {code: 0, signal: null})], runDirMatch: {jobs: [], evidence: null}});
		const exited = (await tick()).time;
		expect(monitor.getMarkers(start).map(m => [m.kind, m.level, m.time])).toEqual([
			['alert', 'critical', critical],
			['save', 'ok', saved],
			['exit', 'ok', exited],
		]);
		expect(monitor.getMarkers(saved).map(m => m.kind)).toEqual(['save', 'exit']);
	});

	test("each rank's RSS and CPU are kept per scan, and forgotten when the rank leaves", async () => {
		const {state, monitor, tick} = setup();
		for (const rss of [100, 200, 300]) {
			state.ranks = rankSet([job(ID, 2, n => ({rssBytes: rss + n, cpuPercent: 50}))]);
			await tick();
		}
		const [rank0, rank1] = state.ranks.ranks;
		expect(monitor.getRankHistory(rank0!.pid, rank0!.startTime).map(s => s.rssBytes)).toEqual([100, 200, 300]);
		expect(monitor.getRankHistory(rank1!.pid, rank1!.startTime).map(s => s.rssBytes)).toEqual([101, 201, 301]);
		// A pid with another start time is another process.
		expect(monitor.getRankHistory(rank0!.pid, rank0!.startTime + 1)).toEqual([]);
		state.ranks = rankSet([job(ID, 1)]);
		await tick();
		expect(monitor.getRankHistory(rank1!.pid, rank1!.startTime)).toEqual([]);
	});
});
