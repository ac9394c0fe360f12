import {expect, test} from 'vitest';
import {isRising, LEVEL_COLOR, LEVEL_TAG, LEVEL_WORD, worse} from '../../src/format/levels.js';

test('one word per level, and the tag is that word padded to four columns', () => {
	expect(LEVEL_WORD).toEqual({ok: 'ok', warn: 'WARN', critical: 'CRIT'});
	expect(LEVEL_TAG).toEqual({ok: 'ok  ', warn: 'WARN', critical: 'CRIT'});
	for (const level of ['ok', 'warn', 'critical'] as const) expect(LEVEL_TAG[level].trim()).toBe(LEVEL_WORD[level]);
});

test('every level has a colour', () => {
	expect(LEVEL_COLOR).toEqual({ok: 'green', warn: 'yellow', critical: 'red'});
});

test('worse picks the more severe level, either way round', () => {
	expect(worse('ok', 'warn')).toBe('warn');
	expect(worse('critical', 'warn')).toBe('critical');
	expect(worse('ok', 'ok')).toBe('ok');
});

test('isRising is true only towards critical', () => {
	expect(isRising('ok', 'warn')).toBe(true);
	expect(isRising('warn', 'critical')).toBe(true);
	expect(isRising('critical', 'warn')).toBe(false);
	expect(isRising('warn', 'warn')).toBe(false);
});
