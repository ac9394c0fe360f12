import {describe, expect, it} from 'vitest';
import type {RankSample} from '../../src/core/rank-history.js';
import {rankHistoryLines} from '../../src/ui/rank-history-lines.js';

const MIB = 1024 ** 2;

describe('rankHistoryLines', () => {
	it('charts a leaking rank: RSS from its first scan to now, climbing, with its scale; CPU beside it', () => {
		// 60 scans 2 s apart: RSS 100 MiB growing 10 MiB a scan, CPU steady at 95 %.
		const samples: RankSample[] = Array.from({length: 60}, (_, i) => ({
			time: 1_000_000 + i * 2000,
			rssBytes: (100 + 10 * i) * MIB,
			cpuPercent: 95,
		}));
		const lines = rankHistoryLines(samples, 70);
		expect(lines[0]).toBe('History (60 scans over 1 m 58 s)');
		expect(lines[1]).toBe('  RSS 100 MiB → 690 MiB, peak 690 MiB');
		// Three chart rows: the scale at the top (110 % of the peak) and 0 at the bottom.
		const rss = lines.slice(2, 5);
		expect(rss[0]).toMatch(/^ +759 MiB [⠀-⣿ ]+$/);
		expect(rss[2]).toMatch(/^ +0 B [⠀-⣿]+$/);
		// Climbing: the top row is empty on the left and lit on the right.
		const top = rss[0]!.slice(10);
		expect(top.trimStart().length).toBeLessThan(top.length);
		for (const line of lines) expect([...line].length).toBeLessThanOrEqual(70);
		expect(lines[5]).toBe('  CPU now 95.0%, peak 95.0% of one core');
		expect(lines.slice(6)).toHaveLength(2);
	});

	it('says so when there is only one scan yet', () => {
		expect(rankHistoryLines([{time: 1, rssBytes: MIB, cpuPercent: null}], 60)).toEqual([
			'History',
			'  one scan so far: the charts start with the next',
		]);
	});
});
