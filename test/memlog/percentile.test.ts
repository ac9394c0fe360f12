import fc from 'fast-check';
import {expect, test} from 'vitest';
import {maxOf, percentile} from '../../src/memlog/percentile.js';

function bySorting(values: Float32Array, q: number): number {
	const sorted = values.slice().sort();
	const rank = (sorted.length - 1) * q;
	const lo = Math.floor(rank);
	const hi = Math.min(sorted.length - 1, lo + 1);
	return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

const values = fc
	.array(
		fc.oneof(fc.float({noNaN: true, noDefaultInfinity: true, min: -1000, max: 1000}), fc.constantFrom(0, 50, 85, 90)),
		{minLength: 1, maxLength: 300},
	)
	.map(v => Float32Array.from(v));

test('quickselect percentiles equal reading a sorted copy, for any q, duplicates and runs included', () => {
	fc.assert(
		fc.property(values, fc.constantFrom(0, 0.5, 0.95, 1, 0.25, 0.999), (a, q) => {
			const want = bySorting(a, q);
			// + 0: -0 and +0 are one value here (a sort orders them, a selection need not).
			expect(percentile(a.slice(), q) + 0).toBe(want + 0);
			expect(maxOf(a) + 0).toBe(bySorting(a, 1) + 0);
		}),
		{numRuns: 500},
	);
});

test('hand-worked: p50 of 1..4 is 2.5, p95 of 0..100 is 95; sorted and constant inputs of 100k stay fast paths', () => {
	expect(percentile(Float32Array.from([4, 1, 3, 2]), 0.5)).toBe(2.5);
	expect(
		percentile(
			Float32Array.from({length: 101}, (_, i) => 100 - i),
			0.95,
		),
	).toBe(95);
	expect(percentile(new Float32Array(0), 0.5)).toBeNaN();
	expect(percentile(new Float32Array(100_000).fill(7), 0.5)).toBe(7);
	const ascending = Float32Array.from({length: 100_000}, (_, i) => i);
	expect(percentile(ascending, 0.95)).toBeCloseTo(94_999.05, 2);
});
