import {expect, test} from 'vitest';
import {sortRankSet} from '../../src/ui/rank-sort.js';
import {jobMemoryOf} from '../helpers/job-memory-data.js';
import {GIB, job, jobSet, rank} from './fixtures.js';

// Sorted by RSS, the ranks follow the RSS column: the rank with its DataLoader workers where its memory was read.

test('by RSS with the job memory: rank + workers, not the rank alone', () => {
	const set = jobSet([
		job('torchrun:100', [
			rank(0, {pid: 100, rssBytes: 5 * GIB, workers: []}),
			rank(1, {pid: 101, rssBytes: 3 * GIB, workers: [1010, 1011]}),
		]),
	]);
	const order = (s: ReturnType<typeof sortRankSet>) => s.ranks.map(r => r.pid);
	// Alone, rank 0 holds more; with its two 2 GiB workers rank 1 holds 7 GiB.
	expect(order(sortRankSet(set, 'rss'))).toEqual([100, 101]);
	expect(order(sortRankSet(set, 'rss', jobMemoryOf(set)))).toEqual([101, 100]);
});
