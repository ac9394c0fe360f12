import {expect, test} from 'vitest';
import {isoTimeText, localTime, localTimeShort} from '../../src/format/time.js';

test('localTime pads every field', () => {
	expect(localTime(new Date(2026, 0, 2, 3, 4, 5).getTime())).toBe('2026-01-02 03:04:05');
});

test('localTimeShort drops the date on the same local day only', () => {
	const now = new Date(2026, 10, 22, 23, 59, 59).getTime();
	expect(localTimeShort(new Date(2026, 10, 22, 0, 0, 0).getTime(), now)).toBe('00:00:00');
	expect(localTimeShort(new Date(2026, 10, 21, 23, 59, 59).getTime(), now)).toBe('2026-11-21 23:59:59');
});

test('isoTimeText reads the ISO time as written, to the minute or the second', () => {
	expect(isoTimeText('2026-11-22T14:30:05.123Z')).toBe('2026-11-22 14:30');
	expect(isoTimeText('2026-11-22T14:30:05.123Z', true)).toBe('2026-11-22 14:30:05');
	// An offset is not applied: the report shows the log's own clock.
	expect(isoTimeText('2026-11-22T14:30:05+02:00', true)).toBe('2026-11-22 14:30:05');
});
