import {expect, test} from 'vitest';
import {exactSpan, formatAge, formatDuration} from '../../src/format/duration.js';

test.each([
	// Under a second: milliseconds, as nvidia-smi's timeouts are written.
	[0, '0 s'],
	[0.0004, '0 s'],
	[0.3, '300 ms'],
	[0.9994, '999 ms'],
	[0.9996, '1 s'],
	// Under 10 s: one decimal, dropped when it is 0.
	[1, '1 s'],
	[2.5, '2.5 s'],
	[9.96, '10 s'],
	// Whole seconds, then two units.
	[45, '45 s'],
	[44.7, '45 s'],
	[59.6, '1 m 00 s'],
	[60, '1 m 00 s'],
	[150, '2 m 30 s'],
	[270, '4 m 30 s'],
	[3600, '1 h 00 m'],
	[3900, '1 h 05 m'],
	[47 * 3600 + 59 * 60, '47 h 59 m'],
	[48 * 3600, '2 d 00 h'],
	[51 * 3600, '2 d 03 h'],
])('formatDuration(%d) = %s', (seconds, text) => {
	expect(formatDuration(seconds)).toBe(text);
});

test('a negative duration keeps its sign, and its units', () => {
	expect(formatDuration(-0.3)).toBe('-300 ms');
	expect(formatDuration(-5)).toBe('-5 s');
	expect(formatDuration(-90)).toBe('-1 m 30 s');
	expect(formatDuration(-0.0001)).toBe('0 s');
});

test('a duration that is not a number is n/a', () => {
	expect(formatDuration(Number.NaN)).toBe('n/a');
	expect(formatDuration(Number.POSITIVE_INFINITY)).toBe('n/a');
});

test.each([
	[45, '45 s'],
	[600, '10 min'],
	[5400, '1.5 h'],
	[200_000, '2.3 d'],
	[0, '0 s'],
	[89.4, '89 s'],
	[90, '2 min'],
	[36 * 3600, '1.5 d'],
	[-30, '0 s'],
])('formatAge(%d) = %s', (seconds, text) => {
	expect(formatAge(seconds)).toBe(text);
});

test('an age that is not a number is n/a', () => {
	expect(formatAge(Number.NaN)).toBe('n/a');
});

test.each([
	[60, '60 s'],
	[300, '5 min'],
	[2.5, '2.5 s'],
	// formatAge would say "2 min" for 90 s: a span someone set is said exactly.
	[90, '1 m 30 s'],
	[150, '2 m 30 s'],
	[7200, '2.0 h'],
])('exactSpan(%d) = %s', (seconds, text) => {
	expect(exactSpan(seconds)).toBe(text);
});
