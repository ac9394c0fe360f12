import {describe, expect, test} from 'vitest';
import {nextSort, sortLabel, sortRankSet} from '../../src/ui/rank-sort.js';
import {INITIAL_STATE, type KeyContext, reduce} from '../../src/ui/state.js';
import {GIB, job, jobSet, rank} from './fixtures.js';

// Two jobs: A's rank 1 holds the most RSS; B's rank 0 has no GPU reading (unknown sorts last).
const A = job('torchrun:100', [
	rank(0, {pid: 100, rssBytes: 1 * GIB, cpuPercent: 90, gpuMemoryBytes: 10 * GIB}),
	rank(1, {pid: 101, rssBytes: 5 * GIB, cpuPercent: 10, gpuMemoryBytes: 20 * GIB}),
	rank(2, {pid: 102, rssBytes: 3 * GIB, cpuPercent: 50, gpuMemoryBytes: 30 * GIB}),
]);
const B = job('slurm:7.0', [
	rank(0, {pid: 200, rssBytes: 9 * GIB, cpuPercent: 5, gpuMemoryBytes: null}),
	rank(1, {pid: 201, rssBytes: 2 * GIB, cpuPercent: 80, gpuMemoryBytes: 1 * GIB}),
]);
const set = jobSet([A, B]);
const pids = (s: ReturnType<typeof sortRankSet>) => s.jobs.map(j => j.ranks.map(r => r.pid));

describe('sorting the ranks', () => {
	test('within each job, largest first; jobs keep their order; unknown last; by rank is the set itself', () => {
		expect(pids(sortRankSet(set, 'rss'))).toEqual([
			[101, 102, 100],
			[200, 201],
		]);
		expect(pids(sortRankSet(set, 'cpu'))).toEqual([
			[100, 102, 101],
			[201, 200],
		]);
		expect(pids(sortRankSet(set, 'gpu'))).toEqual([
			[102, 101, 100],
			[201, 200],
		]);
		expect(sortRankSet(set, 'rss').ranks.map(r => r.pid)).toEqual([101, 102, 100, 200, 201]);
		expect(sortRankSet(set, 'rank')).toBe(set);
	});

	test('the key cycles rank → RSS → CPU → GPU → rank; the title names all but the natural order', () => {
		expect([nextSort('rank'), nextSort('rss'), nextSort('cpu'), nextSort('gpu')]).toEqual([
			'rss',
			'cpu',
			'gpu',
			'rank',
		]);
		expect(sortLabel('rank')).toBeNull();
		expect(sortLabel('rss')).toBe('sorted by RSS ↓');
	});

	test('o in the reducer: the next order, and the cursor stays on its rank (by pid)', () => {
		const context: KeyContext = {
			ranks: set.ranks.map(r => ({pid: r.pid, job: r.job, startTime: r.startTime})),
			page: 2,
			analysisRows: 3,
			helpLines: 10,
			width: 76,
			readonly: false,
			signals: {save: 'SIGUSR1', emergency: 'SIGTERM'},
			now: 0,
		};
		// Cursor on A's rank 0 (pid 100), first row.
		const state = reduce(INITIAL_STATE, {type: 'input', input: 'o', key: {}, context});
		expect(state.sort).toBe('rss');
		expect(state.cursorPid).toBe(100);
	});
});
