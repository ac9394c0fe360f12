import {expect, test} from 'vitest';
import {formatBytes, formatBytesShort, formatPercent, formatThreshold} from '../../src/format/units.js';

const MIB = 1024 ** 2;
const GIB = 1024 ** 3;

test.each([
	[0, '0 B'],
	[1, '1 B'],
	[1023, '1023 B'],
	[1024, '1.0 KiB'],
	[1536, '1.5 KiB'],
	[99.94 * 1024, '99.9 KiB'],
	[99.96 * 1024, '100 KiB'],
	[1023 * 1024, '1023 KiB'],
	[1023.96 * 1024, '1.0 MiB'],
	[1024 * 1024, '1.0 MiB'],
	[100 * MIB, '100 MiB'],
	[512 * MIB, '512 MiB'],
	[3.25 * GIB, '3.3 GiB'],
	[80 * GIB, '80.0 GiB'],
	[1024 * GIB, '1.0 TiB'],
	[1024 ** 6, '1024 PiB'],
])('formatBytes(%d) = %s', (bytes, text) => {
	expect(formatBytes(bytes)).toBe(text);
});

test('formatBytes: unknown is -, negative keeps its sign', () => {
	expect(formatBytes(null)).toBe('-');
	expect(formatBytes(Number.NaN)).toBe('-');
	expect(formatBytes(-1.5 * GIB)).toBe('-1.5 GiB');
	expect(formatBytes(-1023)).toBe('-1023 B');
});

test.each([
	[0, '0M'],
	[1023, '0M'],
	[17 * MIB, '17M'],
	[300 * MIB, '300M'],
	[1023 * MIB, '1023M'],
	[1023.6 * MIB, '1.0G'],
	[GIB, '1.0G'],
	[1.5 * GIB, '1.5G'],
	[-300 * MIB, '-300M'],
])('formatBytesShort(%d) = %s', (bytes, text) => {
	expect(formatBytesShort(bytes)).toBe(text);
});

test('formatBytesShort: unknown is -', () => {
	expect(formatBytesShort(null)).toBe('-');
	expect(formatBytesShort(Number.POSITIVE_INFINITY)).toBe('-');
});

test('formatPercent: one decimal, n/a when unknown', () => {
	expect(formatPercent(12.5)).toBe('12.5%');
	expect(formatPercent(0)).toBe('0.0%');
	expect(formatPercent(100)).toBe('100.0%');
	expect(formatPercent(72.06)).toBe('72.1%');
	expect(formatPercent(null)).toBe('n/a');
	expect(formatPercent(Number.NaN)).toBe('n/a');
});

test('formatThreshold: no .0 on whole numbers, at most one decimal', () => {
	expect(formatThreshold(90)).toBe('90%');
	expect(formatThreshold(87.5)).toBe('87.5%');
	expect(formatThreshold(87.56)).toBe('87.6%');
	expect(formatThreshold(90 - 10.1)).toBe('79.9%');
	expect(formatThreshold(0)).toBe('0%');
});
