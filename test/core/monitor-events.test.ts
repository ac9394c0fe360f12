import {describe, expect, test} from 'vitest';
import {Monitor, type MonitorThresholds} from '../../src/core/monitor.js';
import type {CheckpointIndex, RankSet} from '../../src/core/types.js';
import {checkpoint, checkpointIndex, NOW} from '../helpers/checkpoint-data.js';
import {ScriptedSources} from '../helpers/snapshots.js';
import {ended, job, rankSet} from './job-data.js';

// The Monitor turns each new rank sample and each changed checkpoint index into the job's events, and
// judges OVERDUE with the ranks: scripted sources, a scripted clock, one rank scan per tick.

const thresholds: MonitorThresholds = {
	ram: {critical: 85, warnMargin: 10, hysteresis: 2},
	swap: {critical: 50, warnMargin: 10, hysteresis: 2},
	gpu: {critical: 90, warnMargin: 10, hysteresis: 2},
};

const ID = 'torchrun:4200';
const OTHER = 'torchrun:5200';

/** An index whose last periodic save is 30 min old against a 15 min cadence. */
function overdueIndex(): CheckpointIndex {
	const base = checkpointIndex();
	return {
		...base,
		lastSave: {
			time: NOW - 30 * 60_000,
			ageS: 1800,
			medianIntervalS: 900,
			periodicTime: NOW - 30 * 60_000,
			overdue: true,
		},
	};
}

/**
 * A Monitor whose rank scan returns `ranks` (a new object each time it is set: one scan per tick, as the
 * ranks interval is 0) and whose checkpoint source returns `index`; `withRanks: false` samples no ranks.
 */
function setup(options: {withRanks?: boolean; recentEventLimit?: number} = {}) {
	const state: {ranks: RankSet; index: CheckpointIndex | null; scans: number} = {
		ranks: rankSet([]),
		index: null,
		scans: 0,
	};
	let now = NOW;
	const sources = Object.assign(new ScriptedSources(), {
		checkpoints: {getIndex: () => state.index},
		...(options.withRanks === false
			? {}
			: {
					async readRanks() {
						state.scans++;
						return state.ranks;
					},
				}),
	});
	const monitor = new Monitor({
		sources,
		thresholds,
		intervalMs: 1000,
		ranksIntervalMs: 0,
		host: 'h',
		now: () => now,
		...(options.recentEventLimit === undefined ? {} : {recentEventLimit: options.recentEventLimit}),
	});
	const tick = async () => {
		now += 1000;
		return monitor.tick();
	};
	return {state, monitor, tick};
}

describe('job events in the snapshot', () => {
	test("a new rank sample's events are this tick's and join recentEvents; the same sample again says nothing", async () => {
		const {state, tick} = setup();
		state.ranks = rankSet([job(ID, 2)]);
		let s = await tick();
		expect(s.events).toEqual([]);
		state.ranks = rankSet([job(ID, 2, n => ({stopped: n === 1, state: n === 1 ? 'T' : 'S'}))]);
		s = await tick();
		expect(s.events.map(e => `${e.kind} ${e.pid}`)).toEqual(['rank-stopped 4202']);
		expect(s.events[0]?.time).toBe(s.time);
		expect(s.recentEvents).toEqual(s.events);
		// The scan returned the same object (a failed scan keeps the last ranks): no new events.
		const recent = s.recentEvents;
		s = await tick();
		expect(s.events).toEqual([]);
		expect(s.recentEvents).toBe(recent);
	});

	test('a job that ends: its ranks exit, the job ends, in that order', async () => {
		const {state, tick} = setup();
		state.ranks = rankSet([job(ID, 2)]);
		await tick();
		state.ranks = rankSet([], {
			departed: [0, 1].map(n => ({
				role: 'rank' as const,
				job: ID,
				rank: n,
				pid: 4201 + n,
				exit: {code: 99, signal: null},
			})),
			ended: [ended(ID, {code: 99, signal: null})],
		});
		const s = await tick();
		expect(s.events.map(e => `${e.kind} ${e.level} ${e.text}`)).toEqual([
			'rank-exited warn rank 0 (pid 4201) of torchrun:4200 exited with code 99 — saved for requeue',
			'rank-exited warn rank 1 (pid 4202) of torchrun:4200 exited with code 99 — saved for requeue',
			'job-ended warn job torchrun:4200 ended, exit 99 — saved for requeue',
		]);
	});

	test("a changed checkpoint index gives save-seen, with the run dir's job; recentEvents is bounded", async () => {
		const {state, tick} = setup({recentEventLimit: 2});
		state.ranks = rankSet([job(ID, 1)], {runDirMatch: {jobs: [ID], evidence: 'command line'}});
		const first = checkpointIndex();
		state.index = first;
		expect((await tick()).events).toEqual([]);
		const names: string[] = [];
		for (const step of [1600, 1700, 1800]) {
			state.index = {...first, checkpoints: [...state.index.checkpoints, checkpoint(step, 0)]};
			const s = await tick();
			expect(s.events.map(e => [e.kind, e.job, e.checkpoint])).toEqual([['save-seen', ID, `checkpoint_step_${step}`]]);
			names.push(...s.events.map(e => e.checkpoint ?? ''));
		}
		expect((await tick()).recentEvents.map(e => e.checkpoint)).toEqual(names.slice(-2));
	});
});

describe('a job that has ended is never OVERDUE', () => {
	test("the run dir's job running: OVERDUE stands and is told once", async () => {
		const {state, tick} = setup();
		state.ranks = rankSet([job(ID, 2), job(OTHER, 1)], {runDirMatch: {jobs: [ID], evidence: 'command line'}});
		state.index = overdueIndex();
		let s = await tick();
		expect(s.checkpoints?.lastSave?.overdue).toBe(true);
		expect(s.events.map(e => [e.kind, e.job])).toEqual([['overdue', ID]]);
		state.ranks = rankSet([job(ID, 2), job(OTHER, 1)], {runDirMatch: {jobs: [ID], evidence: 'command line'}});
		s = await tick();
		expect(s.events).toEqual([]);
	});

	test("the run dir's job gone, another job running: not overdue, and no event", async () => {
		const {state, tick} = setup();
		state.ranks = rankSet([job(OTHER, 1)], {runDirMatch: {jobs: [ID], evidence: 'command line'}});
		state.index = overdueIndex();
		const s = await tick();
		expect(s.checkpoints?.lastSave?.overdue).toBe(false);
		expect(s.events).toEqual([]);
		// Only the verdict changed: the rest of the index is the source's.
		expect({...s.checkpoints, lastSave: null}).toEqual({...state.index, lastSave: null});
	});

	test('no job naming the run dir: overdue only while some job runs', async () => {
		const {state, tick} = setup();
		state.index = overdueIndex();
		state.ranks = rankSet([job(OTHER, 1)], {runDirMatch: {jobs: [], evidence: null}});
		let s = await tick();
		expect(s.checkpoints?.lastSave?.overdue).toBe(true);
		state.ranks = rankSet([], {runDirMatch: {jobs: [], evidence: null}});
		s = await tick();
		expect(s.checkpoints?.lastSave?.overdue).toBe(false);
		// The verdict is kept while nothing changes: the same index object, tick after tick.
		const index = s.checkpoints;
		state.ranks = rankSet([], {runDirMatch: {jobs: [], evidence: null}});
		s = await tick();
		expect(s.checkpoints).toBe(index);
		// A job starting again: overdue again (and told again, it is news).
		state.ranks = rankSet([job(ID, 1)], {runDirMatch: null});
		s = await tick();
		expect(s.checkpoints?.lastSave?.overdue).toBe(true);
		expect(s.events.map(e => e.kind)).toEqual(['overdue']);
	});

	test('the job ending while overdue clears it without an event', async () => {
		const {state, tick} = setup();
		state.index = overdueIndex();
		state.ranks = rankSet([job(ID, 1)], {runDirMatch: {jobs: [ID], evidence: 'command line'}});
		await tick();
		state.ranks = rankSet([], {
			ended: [ended(ID, {code: 0, signal: null})],
			runDirMatch: {jobs: [], evidence: null},
		});
		const s = await tick();
		expect(s.checkpoints?.lastSave?.overdue).toBe(false);
		expect(s.events.map(e => e.kind)).toEqual(['job-ended']);
	});

	test('without rank sampling, OVERDUE is as the index says', async () => {
		const {state, tick} = setup({withRanks: false});
		state.index = overdueIndex();
		const s = await tick();
		expect(s.checkpoints).toBe(state.index);
		expect(s.events.map(e => [e.kind, e.job])).toEqual([['overdue', null]]);
	});
});
