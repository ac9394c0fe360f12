import {roundGib, roundPercent} from '../memlog/log-rounding.js';
import {defineMetric, maxOf} from './metric.js';

// Swap: null on a machine without it (the pane says "none", never 0 % of 0).

const GIB = 1024 ** 3;
const gb = (bytes: number) => roundGib(bytes / GIB);

interface SwapWindow {
	peak: number | null;
}

export const swap = defineMetric<SwapWindow>({
	id: 'swap',
	perDevice: false,
	unit: 'percent',
	threshold: {setting: 'swapThreshold'},
	words: {pane: 'swap', status: 'swap', log: ['swap']},
	gauges: ({memory, memoryError}) => {
		if (!memory) return memoryError === null ? 'unread' : 'failed';
		const {swap: reading} = memory;
		if (!reading) return 'none';
		const {percent, usedBytes, totalBytes} = reading;
		return [{metric: 'swap', index: null, percent, usedBytes, totalBytes, sensors: null}];
	},
	status: ({swap: section}) =>
		section
			? [{field: 'swap', metric: 'swap', value: section.percent, peak: section.peak_percent}]
			: [{field: 'swap', code: 'none'}],
	log: {
		start: () => ({peak: null}),
		fold: (state, s) => {
			if (s.memory && s.memoryError === null) state.peak = maxOf(state.peak, s.memory.swap?.percent);
		},
		write: (state, last) => {
			const reading = last.memory?.swap;
			return {
				swap: reading
					? {
							total_gb: gb(reading.totalBytes),
							used_gb: gb(reading.usedBytes),
							percent: roundPercent(reading.percent),
							peak_percent: roundPercent(state.peak ?? reading.percent),
						}
					: null,
			};
		},
	},
});
