import {describe, expect, test} from 'vitest';
import {LevelTracker, nextLevel, rawLevel, type ThresholdRule} from '../../src/core/thresholds.js';
import type {Level} from '../../src/core/types.js';

const ram: ThresholdRule = {critical: 85, warnMargin: 10, hysteresis: 2};

describe('rawLevel', () => {
	test.each([
		[0, 'ok'],
		[74.99, 'ok'],
		[75, 'warn'],
		[84.99, 'warn'],
		[85, 'critical'],
		[100, 'critical'],
	] as const)('%d %% of an 85 %% threshold is %s', (value, level) => {
		expect(rawLevel(value, ram)).toBe(level);
	});

	test('the warn margin is configurable', () => {
		expect(rawLevel(80, {...ram, warnMargin: 3})).toBe('ok');
		expect(rawLevel(82, {...ram, warnMargin: 3})).toBe('warn');
	});
});

describe('nextLevel with 2 points of hysteresis', () => {
	test.each<[Level, number, Level]>([
		// Rising is immediate, even by several levels at once.
		['ok', 75, 'warn'],
		['ok', 85, 'critical'],
		['warn', 85, 'critical'],
		// Falling from critical: stays until below 85 − 2 = 83.
		['critical', 84.9, 'critical'],
		['critical', 83, 'critical'],
		['critical', 82.99, 'warn'],
		// Falling from warn: stays until below 75 − 2 = 73.
		['warn', 74, 'warn'],
		['warn', 73, 'warn'],
		['warn', 72.9, 'ok'],
		// A big drop goes straight to ok.
		['critical', 50, 'ok'],
		// From critical to just under the warn line: warn, not ok (still within its hysteresis).
		['critical', 74, 'warn'],
	])('%s at %d → %s', (previous, value, expected) => {
		expect(nextLevel(previous, value, ram)).toBe(expected);
	});
});

describe('LevelTracker', () => {
	test('a value hovering at the line raises one alert, not one per crossing', () => {
		const tracker = new LevelTracker();
		const values = [84, 85.1, 84.5, 85.3, 84.2, 85.0, 83.5, 84.9];
		const alerts = values.map((v, i) => tracker.update('ram', v, ram, i)).filter(a => a !== null);
		expect(alerts.map(a => `${a.from}→${a.to}`)).toEqual(['ok→warn', 'warn→critical']);
		expect(tracker.level('ram')).toBe('critical');
	});

	test('alerts carry time, metric, value, threshold and the change', () => {
		const tracker = new LevelTracker();
		expect(tracker.update('gpu1', 91, {...ram, critical: 90}, 1234)).toEqual({
			time: 1234,
			metric: 'gpu1',
			value: 91,
			threshold: 90,
			from: 'ok',
			to: 'critical',
		});
		expect(tracker.update('gpu1', 60, {...ram, critical: 90}, 1300)).toMatchObject({from: 'critical', to: 'ok'});
	});

	test('an unknown value keeps the level and raises nothing', () => {
		const tracker = new LevelTracker();
		tracker.update('gpu0', 95, {...ram, critical: 90}, 1);
		expect(tracker.update('gpu0', null, {...ram, critical: 90}, 2)).toBeNull();
		expect(tracker.level('gpu0')).toBe('critical');
	});

	test('metrics are tracked independently, and a forgotten metric starts afresh', () => {
		const tracker = new LevelTracker();
		tracker.update('ram', 90, ram, 1);
		expect(tracker.level('swap')).toBe('ok');
		tracker.forget('ram');
		expect(tracker.level('ram')).toBe('ok');
	});
});
