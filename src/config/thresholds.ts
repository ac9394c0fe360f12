import type {MonitorOptions, MonitorSources, MonitorThresholds} from '../core/monitor.js';
import type {ThresholdRule} from '../core/thresholds.js';
import type {Settings} from './schema.js';
import {METRICS} from '../metrics/registry.js';

/** One warn margin and hysteresis for every metric; only the critical line differs. */
function ruleAt(settings: Settings, critical: number): ThresholdRule {
	return {critical, warnMargin: settings.warnMargin, hysteresis: settings.hysteresis};
}

/**
 * The threshold rules of RAM, swap and the GPUs as a whole: what the Monitor judges by and `--analyze` reports
 * (its JSON carries this object, so the per-GPU rules stay out of it: the memory log has no uuid per series).
 */
export function thresholdsFrom(settings: Settings): MonitorThresholds {
	// Every metric the registry judges, by its id (`ram`, `swap`, `gpu`), at the line of its setting.
	const rules = METRICS.flatMap(m => (m.threshold ? [[m.id, ruleAt(settings, settings[m.threshold.setting])]] : []));
	return Object.fromEntries(rules) as MonitorThresholds;
}

/** The Monitor's options from the settings, as every view that samples uses them. */
export function monitorOptions(settings: Settings, sources: MonitorSources, host: string): MonitorOptions {
	const gpuByUuid = new Map([...settings.gpuThresholds].map(([uuid, critical]) => [uuid, ruleAt(settings, critical)]));
	return {
		sources,
		thresholds: {...thresholdsFrom(settings), gpuByUuid},
		intervalMs: settings.interval * 1000,
		ranksIntervalMs: settings.ranksInterval * 1000,
		readiness: {graceS: settings.grace, maxWorkAtRiskS: settings.maxWorkAtRisk},
		progress: {hangAfterS: settings.hangAfter},
		host,
	};
}
