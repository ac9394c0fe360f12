import {expect, test} from 'vitest';
import {RingBuffer} from '../../src/core/ring-buffer.js';

test('keeps the newest values up to its capacity, oldest first', () => {
	const buffer = new RingBuffer<number>(3);
	expect(buffer.toArray()).toEqual([]);
	expect(buffer.last()).toBeUndefined();
	for (const n of [1, 2]) buffer.push(n);
	expect(buffer.toArray()).toEqual([1, 2]);
	for (const n of [3, 4, 5]) buffer.push(n);
	expect(buffer.toArray()).toEqual([3, 4, 5]);
	expect(buffer.length).toBe(3);
	expect(buffer.last()).toBe(5);
});

test('memory stays bounded however many values are pushed', () => {
	const buffer = new RingBuffer<number>(100);
	for (let i = 0; i < 100_000; i++) buffer.push(i);
	const values = buffer.toArray();
	expect(values).toHaveLength(100);
	expect(values[0]).toBe(99_900);
	expect(values.at(-1)).toBe(99_999);
});

test('rejects a capacity that is not a positive integer', () => {
	expect(() => new RingBuffer(0)).toThrow(/positive integer/);
	expect(() => new RingBuffer(1.5)).toThrow(/positive integer/);
});

test('toArray(limit): only the newest values, oldest first, across the wrap', () => {
	const buffer = new RingBuffer<number>(5);
	for (let i = 1; i <= 7; i++) buffer.push(i);
	expect(buffer.toArray(2)).toEqual([6, 7]);
	expect(buffer.toArray(10)).toEqual([3, 4, 5, 6, 7]);
	expect(buffer.toArray(0)).toEqual([]);
});
