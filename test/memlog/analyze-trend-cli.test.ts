import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {MemoryLogWriter} from '../../src/memlog/writer.js';
import {ramRecord} from '../helpers/log-records.js';
import {noise, seeded} from '../helpers/memory-series.js';
import {runCli} from '../helpers/run-cli.js';

// `traintop --analyze` (the built binary) on memory logs this test writes through the real writer: a steady climb over
// 5 minutes, a spike then a flat hour, and a saw-tooth (memory freed every 5 minutes) with noise. The trend line says
// what the trend is and, on the line below it, which part of the log it is over.

const T0 = Date.parse('2026-11-22T13:00:00Z');
const dir = mkdtempSync(path.join(tmpdir(), 'traintop-analyze-trend-'));
afterAll(() => rmSync(dir, {recursive: true, force: true}));

/** `count` records `stepS` apart of RAM at `percent(seconds)` plus σ 0.3 noise; the CLI's --analyze text. */
async function analyze(name: string, count: number, stepS: number, percent: (s: number) => number): Promise<string> {
	const file = path.join(dir, `${name}.jsonl`);
	const writer = MemoryLogWriter.open(file);
	const jitter = noise(seeded(count), 0.3);
	for (let i = 0; i < count; i++) {
		const value = Math.round((percent(i * stepS) + jitter()) * 100) / 100;
		writer.append(ramRecord(T0 + i * stepS * 1000, value, stepS));
	}
	writer.close();
	const run = await runCli(['--analyze', file], {env: {TZ: 'UTC'}, timeoutMs: 60_000});
	expect(run.code).toBe(0);
	return run.stdout;
}

describe('--analyze trend on generated logs, through the binary', () => {
	it('a steady climb over 5 minutes (12 records): climbing, with its crossing time, over the whole log', async () => {
		// 50 → 60 % in 300 s (2 %/min): 85 % about 17.5 min after the first record, at 13:17:30.
		const out = await analyze('climb', 12, 300 / 11, s => 50 + (2 * s) / 60);
		expect(out).toMatch(
			/trend: \+[\d.]+ GiB\/h \(\+[\d.]+ %\/h\); crosses 85 % at 2026-11-22 13:1[78]\n\s+over the whole log/,
		);
		expect(out).not.toContain('too little data');
	});

	it('a spike, then a flat hour: flat, over the hour after the change', async () => {
		const out = await analyze('spike', 140, 30, s => (s < 600 ? 40 : s < 660 ? 80 : 60));
		expect(out).toMatch(
			/trend: flat[^\n]*\n\s+over the last 5\d m \d+ s, since 2026-11-22 13:1\d:\d\d, after a change there/,
		);
		expect(out).not.toMatch(/falling|rising/);
	});

	it('a saw-tooth whose troughs do not rise (40 → 70 % and freed every 5 minutes, an hour): flat', async () => {
		const out = await analyze('saw', 360, 10, s => 40 + ((s % 300) / 300) * 30);
		expect(out).toMatch(/trend: flat/);
		expect(out).not.toMatch(/falling|rising|crosses/);
	});
});
