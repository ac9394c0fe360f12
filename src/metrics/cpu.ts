import {roundPercent} from '../memlog/log-rounding.js';
import {defineMetric, maxOf} from './metric.js';

// Host CPU: the busy share of all cores between two ticks (system/cpu.ts reads it into Snapshot.cpu). Logged and on
// the status line, not judged (a busy CPU is what a training job is for); the memory pane has it on its title line.

interface CpuWindow {
	peak: number | null;
}

const pct = (percent: number | null) => (percent === null ? null : roundPercent(percent));

export const cpu = defineMetric<CpuWindow>({
	id: 'cpu',
	perDevice: false,
	unit: 'percent',
	threshold: null,
	words: {pane: null, status: 'cpu', log: ['cpu']},
	gauges: ({cpu: reading}) =>
		reading
			? [{metric: 'cpu', index: null, percent: reading.percent, usedBytes: null, totalBytes: null, sensors: null}]
			: 'unread',
	// Records written without it (older ones, a source that does not read the CPU) leave the field out.
	status: ({cpu: section}) =>
		section ? [{field: 'cpu', metric: null, value: section.percent, peak: section.peak_percent}] : [],
	log: {
		start: () => ({peak: null}),
		fold: (state, s) => {
			state.peak = maxOf(state.peak, s.cpu?.percent);
		},
		write: (state, last) => (last.cpu ? {cpu: {percent: pct(last.cpu.percent), peak_percent: pct(state.peak)}} : {}),
	},
});
