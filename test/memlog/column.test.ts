import {expect, test} from 'vitest';
import {ColumnBuilder} from '../../src/memlog/column.js';

test('a column stays one value until a record differs, then reads like the array it became', () => {
	const c = new ColumnBuilder(n => new Float32Array(n));
	for (let i = 0; i < 5; i++) c.push(30);
	const uniform = c.build(null);
	expect(uniform.length).toBe(5);
	expect([0, 4].map(i => uniform.at(i))).toEqual([30, 30]);

	c.push(0.1);
	c.push(Number.NaN);
	const mixed = c.build(null);
	expect(mixed.length).toBe(7);
	expect(Array.from({length: 7}, (_, i) => mixed.at(i))).toEqual([30, 30, 30, 30, 30, Math.fround(0.1), Number.NaN]);
});

test('NaN equals NaN for uniformity; values are stored as the array type stores them; order permutes', () => {
	const nan = new ColumnBuilder(n => new Float32Array(n));
	nan.push(Number.NaN);
	nan.push(Number.NaN);
	expect(nan.build(null).at(1)).toBeNaN();

	const f32 = new ColumnBuilder(n => new Float32Array(n));
	f32.push(0.1);
	// 0.1 and its float32 rounding are the same stored value: still uniform.
	f32.push(Math.fround(0.1));
	expect(f32.build(null).at(0)).toBe(Math.fround(0.1));

	const ints = new ColumnBuilder(n => new Int32Array(n));
	ints.reserve(4);
	for (const v of [-1, -1, 2, 3]) ints.push(v);
	const sorted = ints.build(new Uint32Array([3, 2, 1, 0]));
	expect(Array.from({length: 4}, (_, i) => sorted.at(i))).toEqual([3, 2, -1, -1]);
	expect(ints.build(new Uint32Array([1, 0, 2, 3])).at(0)).toBe(-1);
});

test('growing past the reserved room keeps every value', () => {
	const c = new ColumnBuilder(n => new Int32Array(n));
	c.reserve(2);
	for (let i = 0; i < 5000; i++) c.push(i % 7);
	const col = c.build(null);
	expect(col.length).toBe(5000);
	expect(col.at(4999)).toBe(4999 % 7);
	expect(col.at(1234)).toBe(1234 % 7);
});
