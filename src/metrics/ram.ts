import {ramAgainstLimit} from '../core/ram-limit.js';
import type {Snapshot} from '../core/types.js';
import {roundGib, roundPercent} from '../memlog/log-rounding.js';
import type {LogRecord} from '../memlog/record.js';
import {defineMetric, maxOf} from './metric.js';

// RAM: judged against the job's cgroup limit when it has one (the OOM killer acts there), else the host's RAM. The
// log keeps the host's figures in `memory` (the seed tool's keys) and the limit's in `memory.cgroup`.

const GIB = 1024 ** 3;
const gb = (bytes: number) => roundGib(bytes / GIB);

interface RamWindow {
	peak: number | null;
	peakUsed: number | null;
	peakCgroup: number | null;
}

/** A fresh reading: a failed read keeps the last one in the snapshot, which must not count again. */
function freshMemory(s: Snapshot) {
	return s.memoryError === null ? s.memory : null;
}

function writeMemory(state: RamWindow, last: Snapshot): Pick<LogRecord, 'memory'> {
	const mem = last.memory;
	if (!mem || state.peak === null) return {memory: null};
	const {cgroup} = mem;
	return {
		memory: {
			total_gb: gb(mem.ram.totalBytes),
			used_gb: gb(mem.ram.usedBytes),
			percent: roundPercent(mem.ram.percent),
			available_gb: gb(mem.ram.availableBytes),
			peak_percent: roundPercent(state.peak),
			peak_used_gb: gb(state.peakUsed ?? mem.ram.usedBytes),
			...(cgroup
				? {
						cgroup: {
							scope: cgroup.scope,
							path: cgroup.path,
							version: cgroup.version,
							limit_gb: gb(cgroup.limitBytes),
							used_gb: gb(cgroup.usedBytes),
							percent: roundPercent(cgroup.percent),
							peak_percent: roundPercent(state.peakCgroup ?? cgroup.percent),
						},
					}
				: {}),
		},
	};
}

export const ram = defineMetric<RamWindow>({
	id: 'ram',
	perDevice: false,
	unit: 'percent',
	threshold: {setting: 'ramThreshold'},
	words: {pane: 'RAM', status: 'ram', log: ['memory']},
	gauges: ({memory, memoryError}) => {
		if (!memory) return memoryError === null ? 'unread' : 'failed';
		const {percent, usedBytes, totalBytes} = ramAgainstLimit(memory);
		return [{metric: 'ram', index: null, percent, usedBytes, totalBytes, sensors: null}];
	},
	status: ({memory}) => {
		if (!memory) return [{field: 'ram', code: 'n/a'}];
		const {cgroup} = memory;
		if (!cgroup) return [{field: 'ram', metric: 'ram', value: memory.percent, peak: memory.peak_percent}];
		return [
			{
				field: 'ram',
				metric: 'ram',
				value: cgroup.percent,
				peak: cgroup.peak_percent,
				limit: {scope: cgroup.scope, limitBytes: cgroup.limit_gb * GIB},
				host: {percent: memory.percent, totalBytes: memory.total_gb * GIB},
			},
		];
	},
	log: {
		start: () => ({peak: null, peakUsed: null, peakCgroup: null}),
		fold: (state, s) => {
			const mem = freshMemory(s);
			if (!mem) return;
			state.peak = maxOf(state.peak, mem.ram.percent);
			state.peakUsed = maxOf(state.peakUsed, mem.ram.usedBytes);
			state.peakCgroup = maxOf(state.peakCgroup, mem.cgroup?.percent);
		},
		write: writeMemory,
	},
});
