import type {MonitorOptions, MonitorSources, MonitorThresholds} from '../core/monitor.js';
import type {Settings} from './schema.js';

/** The Monitor's threshold rules from the settings: one warn margin and hysteresis for all metrics. */
export function thresholdsFrom(settings: Settings): MonitorThresholds {
	const rule = (critical: number) => ({critical, warnMargin: settings.warnMargin, hysteresis: settings.hysteresis});
	return {
		ram: rule(settings.ramThreshold),
		swap: rule(settings.swapThreshold),
		gpu: rule(settings.gpuThreshold),
	};
}

/** The Monitor's options from the settings, as every view that samples uses them. */
export function monitorOptions(settings: Settings, sources: MonitorSources, host: string): MonitorOptions {
	return {
		sources,
		thresholds: thresholdsFrom(settings),
		intervalMs: settings.interval * 1000,
		ranksIntervalMs: settings.ranksInterval * 1000,
		host,
	};
}
