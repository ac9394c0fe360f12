import {atLeast} from './level.js';
import type {Alert, Level, MetricId} from './types.js';

/** How one metric is judged: critical at or above `critical`, warn at or above `critical − warnMargin`. */
export interface ThresholdRule {
	/** Critical threshold, percent. */
	readonly critical: number;
	/** Warn begins this many points below the critical threshold. */
	readonly warnMargin: number;
	/** A level drops only once the value is this many points below the boundary that raised it. */
	readonly hysteresis: number;
}

const BELOW: Record<Level, Level> = {ok: 'ok', warn: 'ok', critical: 'warn'};

function warnBoundary(rule: ThresholdRule): number {
	return rule.critical - rule.warnMargin;
}

/** The level a value has with no history: no hysteresis applies. */
export function rawLevel(value: number, rule: ThresholdRule): Level {
	if (value >= rule.critical) return 'critical';
	if (value >= warnBoundary(rule)) return 'warn';
	return 'ok';
}

function boundaryOf(level: Level, rule: ThresholdRule): number {
	return level === 'critical' ? rule.critical : warnBoundary(rule);
}

/**
 * The next level of a metric. Rising is immediate (a breach must never be reported late); falling
 * waits until the value is `hysteresis` points below the boundary, so a value hovering at the line
 * does not flap between levels and flood the alert log.
 */
export function nextLevel(previous: Level, value: number, rule: ThresholdRule): Level {
	const raw = rawLevel(value, rule);
	if (atLeast(raw, previous)) return raw;
	let level = previous;
	while (level !== 'ok' && value < boundaryOf(level, rule) - rule.hysteresis) {
		level = BELOW[level];
	}
	return level;
}

/**
 * Tracks the level of every metric and turns level changes into Alerts. A metric seen for the
 * first time starts from `ok`, so a job that is already over the line raises an alert at once.
 */
export class LevelTracker {
	readonly #levels = new Map<MetricId, Level>();

	level(metric: MetricId): Level {
		return this.#levels.get(metric) ?? 'ok';
	}

	/** Feed one value; returns the Alert if the level changed. A null value (unknown) keeps the level. */
	update(metric: MetricId, value: number | null, rule: ThresholdRule, time: number): Alert | null {
		const from = this.level(metric);
		if (value === null) return null;
		const to = nextLevel(from, value, rule);
		this.#levels.set(metric, to);
		if (to === from) return null;
		return {time, metric, value, threshold: rule.critical, from, to};
	}

	/** Forget a metric that disappeared (a GPU that is gone), so it starts afresh if it returns. */
	forget(metric: MetricId): void {
		this.#levels.delete(metric);
	}
}
