import type {MonitorThresholds} from '../core/monitor.js';
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
