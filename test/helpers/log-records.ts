import type {Monitor} from '../../src/core/monitor.js';
import type {LogRecord} from '../../src/memlog/record.js';
import {scriptedMonitor, THRESHOLDS_AT_85} from './scripted-monitor.js';
import {hostMemory, ScriptedSources} from './snapshots.js';

/** A plain memory-log record, 30 s apart by `seq`: RAM at 50 % (peak 55 %), no swap, no GPU. */
export function plainRecord(seq: number): LogRecord {
	const record = ramRecord(1_700_000_000_000 + seq * 30_000, 50, 30);
	return {...record, host: 'h', memory: {...record.memory!, peak_percent: 55, peak_used_gb: 35.2}};
}

/** A Monitor on scripted sources and a scripted clock: each call ticks it once, RAM at `ram` %, one second later. */
export function ramTicker(): (ram: number) => ReturnType<Monitor['tick']> {
	const sources = new ScriptedSources();
	let now = Date.parse('2026-11-22T10:00:00Z');
	const m = scriptedMonitor(sources, () => now, {thresholds: THRESHOLDS_AT_85});
	return async (ram: number) => {
		sources.memory = hostMemory(ram);
		const snapshot = await m.tick();
		now += 1000;
		return snapshot;
	};
}

/** A record of host RAM at `percent` of 64 GiB at `time` (epoch ms), as the recorder writes one of `intervalS`. */
export function ramRecord(time: number, percent: number, intervalS: number): LogRecord {
	const used = (64 * percent) / 100;
	return {
		timestamp: new Date(time).toISOString(),
		host: 'node-1',
		interval_s: intervalS,
		samples: intervalS,
		memory: {total_gb: 64, used_gb: used, percent, available_gb: 64 - used, peak_percent: percent, peak_used_gb: used},
		swap: null,
		gpu: null,
		gpus: [],
		gpu_status: 'absent',
		gpu_message: 'nvidia-smi not found on PATH',
		alerts: [],
	};
}
