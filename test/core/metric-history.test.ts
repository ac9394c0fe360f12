import {describe, expect, it} from 'vitest';
import {MetricHistory} from '../../src/core/metric-history.js';

describe('MetricHistory', () => {
	it('answers a window inside the recent samples with those samples, as they came', () => {
		const history = new MetricHistory({recent: 10, buckets: 4, bucketMs: 5});
		for (let t = 0; t < 10; t++) history.push(t, t * 10);
		expect(history.series(6, Number.MAX_SAFE_INTEGER)).toEqual([
			{time: 6, value: 60},
			{time: 7, value: 70},
			{time: 8, value: 80},
			{time: 9, value: 90},
		]);
		expect(history.latest(2).map(p => p.value)).toEqual([80, 90]);
	});

	it('reaches back to the first sample through buckets that keep each span’s highest value', () => {
		const history = new MetricHistory({recent: 5, buckets: 100, bucketMs: 10});
		// 0..99: a spike of 95 at t=13, otherwise the value is t % 7.
		for (let t = 0; t < 100; t++) history.push(t, t === 13 ? 95 : t % 7);
		const points = history.series(0, Number.MAX_SAFE_INTEGER);
		// Buckets of 10 ms up to the recent samples (t 95..99), then those samples as they came.
		expect(points[0]).toEqual({time: 0, value: 6});
		expect(points.find(p => p.time === 10)).toEqual({time: 10, value: 95});
		expect(points.slice(-5).map(p => p.time)).toEqual([95, 96, 97, 98, 99]);
		expect(history.firstTime).toBe(0);
	});

	it('doubles its buckets’ span when they fill, so memory stays bounded for any run length', () => {
		const history = new MetricHistory({recent: 3, buckets: 8, bucketMs: 1});
		for (let t = 0; t < 10_000; t++) history.push(t, t === 1234 ? 99 : 1);
		const points = history.series(0, Number.MAX_SAFE_INTEGER);
		// 8 buckets at most (and the 3 recent samples): the span doubled until 10 000 fit in them.
		expect(points.length).toBeLessThanOrEqual(8 + 3 + 1);
		expect(history.bucketMs).toBeGreaterThanOrEqual(2048);
		expect(points[0]!.time).toBe(0);
		// The spike survives every merge: peaks are what a memory chart must not lose.
		expect(Math.max(...points.map(p => p.value))).toBe(99);
		const times = points.map(p => p.time);
		expect([...times].sort((a, b) => a - b)).toEqual(times);
		expect(new Set(times).size).toBe(times.length);
	});

	it('has nothing before the first sample', () => {
		const history = new MetricHistory();
		expect(history.series(0, Number.MAX_SAFE_INTEGER)).toEqual([]);
		expect(history.firstTime).toBeNull();
	});
});

describe('MetricHistory.series in bins', () => {
	it('gives at most `bins` points, each the highest of its share at its own time, within [from, to]', () => {
		const history = new MetricHistory({recent: 3600, buckets: 100, bucketMs: 10_000});
		// An hour at 1 s; one spike of 99 at t = 1234 s.
		for (let t = 0; t < 3600; t++) history.push(t * 1000, t === 1234 ? 99 : t % 50);
		const points = history.series(0, 3_600_000, 120);
		expect(points.length).toBeLessThanOrEqual(120);
		expect(points.length).toBeGreaterThan(110);
		expect(points).toContainEqual({time: 1_234_000, value: 99});
		// Each share of 30 s has its highest: 49 where the share holds a whole cycle of 50.
		expect(points[0]).toEqual({time: 29_000, value: 29});
		expect(history.series(600_000, 660_000, 1000)).toHaveLength(61);
		expect(history.series(5_000_000, 6_000_000, 10)).toEqual([]);
	});

	it('leaves a share with no sample empty: a gap stays a gap', () => {
		const history = new MetricHistory();
		for (const t of [0, 1, 2, 8, 9]) history.push(t * 1000, 50);
		expect(history.series(0, 10_000, 10).map(p => p.time)).toEqual([0, 1000, 2000, 8000, 9000]);
	});
});
