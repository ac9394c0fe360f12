import {describe, expect, it} from 'vitest';
import {backoffMs, pause, RETRY_BASE_MS, retryAfterMs} from '../../src/notify/backoff.js';

describe('backoffMs', () => {
	it('doubles from 1 s, within ±20 % jitter', () => {
		expect([1, 2, 3].map(retry => backoffMs(retry, RETRY_BASE_MS, () => 0))).toEqual([800, 1600, 3200]);
		expect([1, 2, 3].map(retry => backoffMs(retry, RETRY_BASE_MS, () => 1))).toEqual([1200, 2400, 4800]);
		expect(backoffMs(2, RETRY_BASE_MS, () => 0.5)).toBe(2000);
	});
});

describe('retryAfterMs', () => {
	it('reads seconds and HTTP dates, and caps them at a minute', () => {
		expect(retryAfterMs('1')).toBe(1000);
		expect(retryAfterMs(' 30 ')).toBe(30_000);
		expect(retryAfterMs('3600')).toBe(60_000);
		const now = Date.parse('2026-11-29T01:00:00Z');
		expect(retryAfterMs('Sun, 29 Nov 2026 01:00:05 GMT', now)).toBe(5000);
		expect(retryAfterMs('Sun, 29 Nov 2026 00:59:00 GMT', now)).toBe(0);
	});

	it('is null when there is nothing to read', () => {
		expect(retryAfterMs(null)).toBeNull();
		expect(retryAfterMs('soon')).toBeNull();
		expect(retryAfterMs('-5')).toBeNull();
	});
});

describe('pause', () => {
	it('ends at once when aborted', async () => {
		const abort = new AbortController();
		const start = performance.now();
		const waiting = pause(60_000, abort.signal);
		abort.abort();
		await waiting;
		expect(performance.now() - start).toBeLessThan(5000);
	});
});
