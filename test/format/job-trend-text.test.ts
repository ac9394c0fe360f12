import {expect, it} from 'vitest';
import type {ProcessTrend} from '../../src/core/memory-types.js';
import {jobTrendText} from '../../src/format/memory-trend.js';

// The job memory line's trend part, as the ranks pane shows it under a job: a growing process named with its rate
// and the crossing time, "learning" while no process has a window yet, "no growth" once judged.

const MIB = 1024 ** 2;
const NOW = new Date(2026, 10, 28, 13, 0, 0).getTime();
const trend = (over: Partial<ProcessTrend>): ProcessTrend => ({
	role: 'rank',
	rank: 0,
	pid: 100,
	state: 'steady',
	bytesPerMin: 0,
	windowS: 90,
	since: null,
	...over,
});
const text = (trends: ProcessTrend[], reachesThresholdAt: number | null = null) =>
	jobTrendText({job: 'torchrun:1', trends, reachesThresholdAt}, NOW);

it('names the growing processes, their rates and when the job reaches the RAM threshold', () => {
	const growing = trend({rank: 1, pid: 101, state: 'growing', bytesPerMin: 20 * MIB, since: NOW - 60_000});
	const at = new Date(2026, 10, 28, 14, 2, 0).getTime();
	expect(text([trend({}), growing], at)).toBe('rank 1 +20 MiB/min, RAM threshold at 14:02');
	const worker = trend({role: 'worker', rank: 1, pid: 300, state: 'growing', bytesPerMin: 3 * MIB});
	const third = trend({rank: 2, pid: 102, state: 'growing', bytesPerMin: MIB});
	expect(text([growing, worker, third])).toBe('rank 1 +20 MiB/min, rank 1 worker 300 +3 MiB/min, 1 more');
});

it('says it is learning while every process is, then no growth; nothing before any judgement', () => {
	expect(text([trend({state: 'learning', windowS: 20}), trend({state: 'learning', windowS: 40})])).toBe(
		'trend learning 40 s',
	);
	expect(text([trend({}), trend({state: 'learning', windowS: 4})])).toBe('no growth');
	expect(text([])).toBeNull();
	expect(text([trend({state: 'unknown', bytesPerMin: null})])).toBeNull();
});
