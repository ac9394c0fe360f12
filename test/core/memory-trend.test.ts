import {describe, expect, test} from 'vitest';
import {MemoryTrendJudge, ramLineOf, reachesAt} from '../../src/core/memory-trend.js';
import type {JobMemory, MemoryTrendState, ProcessMemory, RankMemory} from '../../src/core/memory-types.js';
import {hostMemory} from '../helpers/snapshots.js';
import {flat, GIB, linear, MIB, noise, type Profile, sawTooth, seeded, switchAt} from '../helpers/memory-series.js';

// The judge on hand-built JobMemory arrays and a scripted clock: a rank scan every 2 s, each process's RSS from a
// generated profile with seeded noise (σ 2 MiB), two DataLoader workers per rank.

const T0 = Date.parse('2026-11-22T10:00:00Z');
const SCAN_S = 2;

const proc = (pid: number, rssBytes: number | null): ProcessMemory => ({pid, rssBytes, pssBytes: null});

function rankMemory(rank: number, rss: number | null, workers: readonly number[]): RankMemory {
	const pid = 4200 + rank;
	return {
		rank,
		pid,
		self: proc(pid, rss),
		workers: workers.map((w, i) => proc(5000 + rank * 10 + i, w)),
		rssBytes: rss,
		pssBytes: null,
		gpuBytes: null,
	};
}

function jobMemory(ranks: readonly RankMemory[]): JobMemory {
	return {
		job: 'torchrun:4200',
		ranks,
		rssBytes: null,
		pssBytes: null,
		gpuBytes: null,
		pssAt: null,
		trends: [],
		reachesThresholdAt: null,
		growthBytesPerMin: 0,
	};
}

interface Run {
	/** Per scan, each process's state by "rank/pid". */
	readonly states: Map<string, MemoryTrendState[]>;
	/** The seconds at which a process first became growing. */
	readonly namedAt: Map<string, number>;
	readonly last: readonly JobMemory[];
}

/** Runs the judge for `durationS` over ranks whose RSS follows `profiles[rank]`; workers stay flat at 600 MiB. */
function run(profiles: readonly Profile[], durationS: number, judge = new MemoryTrendJudge()): Run {
	const jitter = noise(seeded(7), 2 * MIB);
	const states = new Map<string, MemoryTrendState[]>();
	const namedAt = new Map<string, number>();
	let last: readonly JobMemory[] = [];
	for (let t = 0; t <= durationS; t += SCAN_S) {
		const ranks = profiles.map((p, rank) =>
			rankMemory(rank, p(t) + jitter(), [600 * MIB + jitter(), 600 * MIB + jitter()]),
		);
		last = judge.judge(
			[jobMemory(ranks)],
			{usedBytes: 40 * GIB, limitBytes: 64 * GIB, criticalPercent: 85},
			T0 + t * 1000,
		);
		for (const trend of last[0]!.trends) {
			const key = `${trend.role} ${trend.rank}/${trend.pid}`;
			const list = states.get(key) ?? [];
			list.push(trend.state);
			states.set(key, list);
			if (trend.state === 'growing' && !namedAt.has(key)) namedAt.set(key, t);
		}
	}
	return {states, namedAt, last};
}

/** Times a process's state changed (learning → steady not counted). */
const flips = (list: readonly MemoryTrendState[]) =>
	list.filter((s, i) => i > 0 && s !== list[i - 1] && list[i - 1] !== 'learning').length;

const HEALTHY = flat(3 * GIB);

describe('MemoryTrendJudge', () => {
	test('a rank leaking 2 MiB a step is named within 2 minutes; the healthy ranks and the workers never', () => {
		// One step every 0.5 s: 240 MiB/min.
		const r = run([HEALTHY, linear(3 * GIB, 240 * MIB), HEALTHY], 600);
		expect(r.namedAt.get('rank 1/4201')).toBeLessThanOrEqual(120);
		expect([...r.namedAt.keys()]).toEqual(['rank 1/4201']);
		const leak = r.last[0]!.trends.find(t => t.pid === 4201)!;
		expect(leak.state).toBe('growing');
		expect(leak.bytesPerMin! / MIB).toBeGreaterThan(220);
		expect(leak.bytesPerMin! / MIB).toBeLessThan(260);
		expect(leak.since).toBe(T0);
		expect(r.last[0]!.growthBytesPerMin).toBe(leak.bytesPerMin);
		// 40 GiB used of the 64 GiB limit, critical at 85 % (54.4 GiB): 14.4 GiB at ~240 MiB/min, about an hour.
		const at = r.last[0]!.reachesThresholdAt!;
		expect((at - (T0 + 600_000)) / 60_000).toBeGreaterThan(55);
		expect((at - (T0 + 600_000)) / 60_000).toBeLessThan(68);
		for (const [key, list] of r.states) expect(flips(list), key).toBe(key === 'rank 1/4201' ? 1 : 0);
	});

	test('a slow leak (1 step every 1 s at 2 MiB: 120 MiB/min) of a large rank is named within 2 minutes', () => {
		const r = run([linear(20 * GIB, 120 * MIB)], 300);
		expect(r.namedAt.get('rank 0/4200')).toBeLessThanOrEqual(120);
	});

	test('learning for its first minute, saying how much window there is', () => {
		const judge = new MemoryTrendJudge();
		const r = run([HEALTHY], 30, judge);
		const trend = r.last[0]!.trends[0]!;
		expect(trend).toMatchObject({state: 'learning', bytesPerMin: null, windowS: 30, since: null});
		// Ranks first, then the workers, each with its rank.
		expect(r.last[0]!.trends.map(t => [t.role, t.rank])).toEqual([
			['rank', 0],
			['worker', 0],
			['worker', 0],
		]);
		const later = run([HEALTHY], 90).last[0]!.trends[0]!;
		expect(later.state).toBe('steady');
		expect(Math.abs(later.bytesPerMin!)).toBeLessThan(MIB);
	});

	test.each([
		['a warm-up (0.5 → 3 GiB in 40 s) then flat', switchAt(linear(0.5 * GIB, 3.75 * GIB), 40, flat(3 * GIB))],
		['flat', HEALTHY],
		['a fast saw-tooth (300 MiB every 10 s)', sawTooth(3 * GIB, 300 * MIB, 10)],
		['a saw-tooth of a minute (500 MiB)', sawTooth(3 * GIB, 500 * MIB, 60)],
		['a spike that then stays', switchAt(HEALTHY, 300, flat(4 * GIB))],
		['a step down', switchAt(HEALTHY, 300, flat(2 * GIB))],
	])('never named: %s', (_name, profile) => {
		const r = run([profile], 1200);
		expect([...r.namedAt.keys()]).toEqual([]);
		expect(r.last[0]!.growthBytesPerMin).toBe(0);
		expect(r.last[0]!.reachesThresholdAt).toBeNull();
	});

	test('a slow saw-tooth: its first tooth is a climb like any other, and once it has dropped it is never named again', () => {
		// 500 MiB every 3 min: nothing before the first drop (at 180 s) tells it from a leak; after it, every half of
		// the window holds a trough. Teeth shorter than the learning minute plus the agreement (80 s) are never named.
		const r = run([sawTooth(3 * GIB, 500 * MIB, 180)], 1800);
		const list = r.states.get('rank 0/4200')!;
		expect(r.namedAt.get('rank 0/4200')).toBeLessThan(180);
		const steadyAgain = list.indexOf('steady', r.namedAt.get('rank 0/4200')! / SCAN_S);
		expect(steadyAgain * SCAN_S).toBeLessThan(300);
		expect(list.slice(steadyAgain).every(s => s === 'steady')).toBe(true);
	});

	test('a leak that stops: growing, then steady once the flat part is judged, and no flapping', () => {
		const r = run([switchAt(linear(3 * GIB, 100 * MIB), 300, flat(3 * GIB + 500 * MIB))], 900);
		const list = r.states.get('rank 0/4200')!;
		expect(r.namedAt.get('rank 0/4200')).toBeLessThanOrEqual(120);
		expect(list.at(-1)).toBe('steady');
		expect(flips(list)).toBe(2);
	});

	test('a growth at the line does not flap', () => {
		// 1.2 MiB/min on a 3 GiB rank (its line: 1 MiB/min or 0.02 % of 3 GiB, 0.6 MiB/min), noise σ 2 MiB.
		const r = run([linear(3 * GIB, 1.2 * MIB)], 1800);
		expect(flips(r.states.get('rank 0/4200')!)).toBeLessThanOrEqual(1);
	});

	test('an unreadable RSS is unknown, and the same input array gives the same output', () => {
		const judge = new MemoryTrendJudge();
		const memory = [jobMemory([rankMemory(0, null, [])])];
		const out = judge.judge(memory, null, T0);
		expect(out[0]!.trends[0]).toMatchObject({state: 'unknown', bytesPerMin: null});
		expect(judge.judge(memory, null, T0 + 1000)).toBe(out);
	});

	test('a reused pid with another start time starts learning again', () => {
		const judge = new MemoryTrendJudge();
		run([HEALTHY], 120, judge);
		const again = judge.judge([jobMemory([rankMemory(0, 3 * GIB, [])])], null, T0 + 122_000, new Map([[4200, 99]]));
		expect(again[0]!.trends[0]!.state).toBe('learning');
	});
});

describe('reachesAt', () => {
	test('the time the RAM reaches its critical line at the summed growth', () => {
		// 54.4 GiB line − 40 GiB used = 14.4 GiB at 144 MiB/min: 102.4 min.
		const at = reachesAt({usedBytes: 40 * GIB, limitBytes: 64 * GIB, criticalPercent: 85}, 144 * MIB, T0);
		expect(at).toBeCloseTo(T0 + 102.4 * 60_000, -1);
		expect(reachesAt({usedBytes: 60 * GIB, limitBytes: 64 * GIB, criticalPercent: 85}, 144 * MIB, T0)).toBeNull();
		expect(reachesAt({usedBytes: 40 * GIB, limitBytes: 64 * GIB, criticalPercent: 85}, 0, T0)).toBeNull();
		expect(reachesAt(null, 144 * MIB, T0)).toBeNull();
	});
});

describe('ramLineOf', () => {
	test("the RAM metric's line: the job's cgroup limit where there is one, else the host's RAM", () => {
		expect(ramLineOf(null, 85)).toBeNull();
		expect(ramLineOf(hostMemory(50), 85)).toEqual({usedBytes: 32 * GIB, limitBytes: 64 * GIB, criticalPercent: 85});
		const cgroup = {
			scope: 'job' as const,
			version: 2 as const,
			path: '/job',
			usedBytes: 6 * GIB,
			limitBytes: 8 * GIB,
			percent: 75,
		};
		expect(ramLineOf({...hostMemory(50), cgroup}, 85)).toEqual({
			usedBytes: 6 * GIB,
			limitBytes: 8 * GIB,
			criticalPercent: 85,
		});
	});
});
