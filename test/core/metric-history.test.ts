import {describe, expect, it} from 'vitest';
import {MetricHistory} from '../../src/core/metric-history.js';

describe('MetricHistory', () => {
	it('answers a window inside the recent samples with those samples, as they came', () => {
		const history = new MetricHistory({recent: 10, buckets: 4, bucketMs: 5});
		for (let t = 0; t < 10; t++) history.push(t, t * 10);
		expect(history.since(6)).toEqual([
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
		const points = history.since(0);
		// Buckets of 10 ms up to the recent samples (t 95..99), then those samples as they came.
		expect(points[0]).toEqual({time: 0, value: 6});
		expect(points.find(p => p.time === 10)).toEqual({time: 10, value: 95});
		expect(points.slice(-5).map(p => p.time)).toEqual([95, 96, 97, 98, 99]);
		expect(history.firstTime).toBe(0);
	});

	it('doubles its buckets’ span when they fill, so memory stays bounded for any run length', () => {
		const history = new MetricHistory({recent: 3, buckets: 8, bucketMs: 1});
		for (let t = 0; t < 10_000; t++) history.push(t, t === 1234 ? 99 : 1);
		const points = history.since(0);
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
		expect(history.since(0)).toEqual([]);
		expect(history.firstTime).toBeNull();
	});
});
