import {describe, expect, test} from 'vitest';
import type {JobMemory, ProcessTrend} from '../../src/core/memory-types.js';
import {memoryEvents} from '../../src/core/memory-events.js';
import {MemoryTrendJudge} from '../../src/core/memory-trend.js';
import {rateText, trendTag} from '../../src/format/memory-trend.js';
import {eventRecord} from '../../src/headless/format.js';
import {MIB} from '../helpers/memory-series.js';

const T0 = new Date(2026, 10, 22, 13, 40, 0).getTime();

function job(trends: ProcessTrend[], reachesThresholdAt: number | null = null): JobMemory {
	return {
		job: 'torchrun:4200',
		ranks: [],
		rssBytes: null,
		pssBytes: null,
		gpuBytes: null,
		pssAt: null,
		trends,
		reachesThresholdAt,
		growthBytesPerMin: 0,
	};
}

const trend = (state: ProcessTrend['state'], extra: Partial<ProcessTrend> = {}): ProcessTrend => ({
	role: 'rank',
	rank: 1,
	pid: 4243,
	state,
	bytesPerMin: 20 * MIB,
	windowS: 300,
	since: T0 - 300_000,
	...extra,
});

describe('memory events', () => {
	test('a process becoming growing is a warn event naming it, its rate and when the job reaches the RAM line', () => {
		const reaches = new Date(2026, 10, 22, 14, 2, 31).getTime();
		const events = memoryEvents([job([trend('steady')])], [job([trend('growing')], reaches)], T0);
		expect(events).toEqual([
			{
				time: T0,
				kind: 'memory-growing',
				job: 'torchrun:4200',
				rank: 1,
				pid: 4243,
				level: 'warn',
				text: 'rank 1 (pid 4243) of torchrun:4200: RSS grows 20 MiB/min; at this rate the job reaches the RAM threshold at 14:02',
				growth: {role: 'rank', bytesPerMin: 20 * MIB, reachesThresholdAt: reaches},
			},
		]);
		// --json: snake_case, whole bytes, an ISO time.
		expect(eventRecord(events[0]!)).toMatchObject({
			event: 'memory-growing',
			growth: {role: 'rank', bytes_per_min: 20 * MIB, reaches_threshold_at: new Date(reaches).toISOString()},
		});
	});

	test('steady again is an ok event; staying growing, learning and unknown say nothing', () => {
		const worker = {role: 'worker' as const, pid: 5001};
		const steady = memoryEvents(
			[job([trend('growing', worker)])],
			[job([trend('steady', {...worker, bytesPerMin: 0.2 * MIB})])],
			T0,
		);
		expect(steady).toMatchObject([{kind: 'memory-steady', level: 'ok', rank: 1, pid: 5001}]);
		expect(steady[0]!.text).toBe(
			"rank 1's DataLoader worker (pid 5001) of torchrun:4200: RSS steady again (+205 KiB/min)",
		);
		expect(memoryEvents([job([trend('growing')])], [job([trend('growing')])], T0)).toEqual([]);
		expect(memoryEvents([job([trend('learning')])], [job([trend('steady')])], T0)).toEqual([]);
		expect(memoryEvents([job([trend('growing')])], [job([trend('unknown')])], T0)).toEqual([]);
		const same = [job([trend('growing')])];
		expect(memoryEvents(same, same, T0)).toEqual([]);
	});

	test('without a time to reach, the rate alone', () => {
		const [event] = memoryEvents(null, [job([trend('growing')])], T0);
		expect(event!.text).toBe('rank 1 (pid 4243) of torchrun:4200: RSS grows 20 MiB/min');
	});

	test('from the judge: one memory-growing for the leaking rank, none for the flat one', () => {
		const judge = new MemoryTrendJudge();
		let previous: readonly JobMemory[] | null = null;
		const events = [];
		for (let t = 0; t <= 180; t += 2) {
			const leak = 3 * 1024 * MIB + 240 * MIB * (t / 60);
			const proc = (pid: number, rss: number) => ({pid, rssBytes: rss, pssBytes: null});
			const rank = (r: number, rss: number) => ({
				rank: r,
				pid: 4200 + r,
				self: proc(4200 + r, rss),
				workers: [],
				rssBytes: rss,
				pssBytes: null,
				gpuBytes: null,
			});
			const memory = judge.judge([{...job([]), ranks: [rank(0, 3 * 1024 * MIB), rank(1, leak)]}], null, T0 + t * 1000);
			events.push(...memoryEvents(previous, memory, T0 + t * 1000));
			previous = memory;
		}
		expect(events.map(e => [e.kind, e.rank])).toEqual([['memory-growing', 1]]);
	});
});

describe('words', () => {
	test('rates and the ranks pane tag', () => {
		expect(rateText(20 * MIB)).toBe('+20 MiB/min');
		expect(rateText(-1.5 * MIB)).toBe('-1.5 MiB/min');
		expect(trendTag(trend('growing'))).toBe('+20 MiB/min');
		expect(trendTag(trend('learning', {windowS: 40.4}))).toBe('learning 40 s');
		expect(trendTag(trend('steady'))).toBe('steady');
		expect(trendTag(trend('unknown'))).toBe('?');
	});
});
