import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, test} from 'vitest';
import {parseSmapsRollup} from '../../src/system/smaps-rollup.js';

// Recorded on Linux 6.18 (test/fixtures/proc/README.md, `smaps-rollup`): a python3 holding a touched 200 MiB numpy
// array, and the child it forked that only read it. Their pages are shared, so each one's PSS is about half its RSS.

const fixture = (name: string) =>
	readFileSync(path.join(import.meta.dirname, '../fixtures/proc/smaps-rollup', name), 'utf8');

describe('parseSmapsRollup', () => {
	test('the parent of a forked child: every kB figure in bytes', () => {
		expect(parseSmapsRollup(fixture('parent'))).toEqual({
			rssBytes: 237_240 * 1024,
			pssBytes: 123_523 * 1024,
			pssAnonBytes: 110_884 * 1024,
			pssFileBytes: 12_639 * 1024,
			pssShmemBytes: 0,
			swapBytes: 0,
			swapPssBytes: 0,
		});
	});

	test('the forked child shares the array: the two PSS add up to about one copy, the two RSS to two', () => {
		const parent = parseSmapsRollup(fixture('parent'))!;
		const child = parseSmapsRollup(fixture('forked-child'))!;
		const MiB = 1024 * 1024;
		expect(child.rssBytes).toBe(226_160 * 1024);
		expect(child.pssBytes).toBe(113_363 * 1024);
		expect((parent.rssBytes + child.rssBytes) / MiB).toBeGreaterThan(400);
		expect((parent.pssBytes + child.pssBytes) / MiB).toBeLessThan(250);
	});

	test('an older kernel without the Pss_* and swap lines: those are null', () => {
		expect(parseSmapsRollup('00400000-7ffd ---p 00000000 00:00 0 [rollup]\nRss:  8 kB\nPss:   4 kB\n')).toEqual({
			rssBytes: 8192,
			pssBytes: 4096,
			pssAnonBytes: null,
			pssFileBytes: null,
			pssShmemBytes: null,
			swapBytes: null,
			swapPssBytes: null,
		});
	});

	test('a text that is not smaps_rollup is null', () => {
		// An empty read (a kernel thread, a zombie), status's text, a Pss without its unit, no Pss line at all.
		expect(parseSmapsRollup('')).toBeNull();
		expect(parseSmapsRollup('Name:\tpython3\nVmRSS:\t  1024 kB\n')).toBeNull();
		expect(parseSmapsRollup('Rss: 8 kB\nPss: 4\n')).toBeNull();
		expect(parseSmapsRollup('Rss: 8 kB\nPss: four kB\n')).toBeNull();
		expect(parseSmapsRollup('Rss: 8 kB\n')).toBeNull();
	});
});
