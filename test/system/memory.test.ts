import {readFileSync} from 'node:fs';
import {expect, test} from 'vitest';
import {readHostMemory, toHostMemory} from '../../src/system/memory.js';

const GIB = 1024 ** 3;

test('used is total − available, as psutil computes the percent the seed tool logged', () => {
	const m = toHostMemory({total: 64 * GIB, available: 16 * GIB, swaptotal: 8 * GIB, swapused: 2 * GIB});
	expect(m.ram).toEqual({totalBytes: 64 * GIB, usedBytes: 48 * GIB, availableBytes: 16 * GIB, percent: 75});
	expect(m.swap).toEqual({totalBytes: 8 * GIB, usedBytes: 2 * GIB, percent: 25});
});

test('a machine without swap reports swap as absent, never NaN', () => {
	const m = toHostMemory({total: 8 * GIB, available: 8 * GIB, swaptotal: 0, swapused: 0});
	expect(m.swap).toBeNull();
	expect(m.ram.percent).toBe(0);
});

test('a zero total (broken /proc) gives 0 %, not NaN', () => {
	expect(toHostMemory({total: 0, available: 0, swaptotal: 0, swapused: 0}).ram.percent).toBe(0);
});

test('the real reader agrees with /proc/meminfo on this machine', async () => {
	const meminfo = readFileSync('/proc/meminfo', 'utf8');
	const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(meminfo)?.[1]) * 1024;
	const m = await readHostMemory();
	expect(m.ram.totalBytes).toBe(kib('MemTotal'));
	// Available moves while we read; it must be within 5 % of what /proc said a moment ago.
	expect(Math.abs(m.ram.availableBytes - kib('MemAvailable'))).toBeLessThan(kib('MemTotal') * 0.05);
	expect(m.ram.percent).toBeGreaterThan(0);
	expect(m.ram.percent).toBeLessThan(100);
	if (kib('SwapTotal') === 0) expect(m.swap).toBeNull();
	else expect(m.swap?.totalBytes).toBe(kib('SwapTotal'));
});
