import {readFileSync} from 'node:fs';
import type {HostCpu} from '../core/types.js';

// Host CPU: busy share of all cores between two reads of /proc/stat's `cpu` line, and the load average from
// /proc/loadavg. Pure parsers and a small stateful reader; /proc is read synchronously (in memory, microseconds).

export interface CpuTimes {
	/** All jiffies (user nice system idle iowait irq softirq steal). */
	readonly total: number;
	/** idle + iowait: time no task ran. */
	readonly idle: number;
}

/** The aggregate `cpu ` line of /proc/stat, and the number of `cpuN` lines (online cores); null if absent. */
export function parseProcStat(text: string): {times: CpuTimes; cores: number} | null {
	let times: CpuTimes | null = null;
	let cores = 0;
	for (const line of text.split('\n')) {
		if (line.startsWith('cpu ')) {
			// guest and guest_nice (fields 9, 10) are already counted in user and nice.
			const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
			if (f.length < 4 || f.some(n => !Number.isFinite(n))) return null;
			const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
			times = {total: user + nice + system + idle + iowait + irq + softirq + steal, idle: idle + iowait};
		} else if (/^cpu\d+ /.test(line)) cores++;
	}
	return times && {times, cores: Math.max(1, cores)};
}

/** `0.42 0.30 0.25 2/345 6789` → [0.42, 0.30, 0.25]; null for anything else. */
export function parseLoadAvg(text: string): readonly [number, number, number] | null {
	const [a, b, c] = text.trim().split(/\s+/).map(Number);
	return a !== undefined && b !== undefined && c !== undefined && [a, b, c].every(Number.isFinite) ? [a, b, c] : null;
}

/** Busy percent of all cores between two readings; null when no time passed. */
export function busyPercent(before: CpuTimes, after: CpuTimes): number | null {
	const total = after.total - before.total;
	if (total <= 0) return null;
	return Math.min(100, Math.max(0, ((total - (after.idle - before.idle)) / total) * 100));
}

/** Reads the host CPU on each call, busy since the previous call (null on the first). */
export function hostCpuReader(procRoot = '/proc'): () => HostCpu | null {
	let previous: CpuTimes | null = null;
	return () => {
		let stat: ReturnType<typeof parseProcStat>;
		let load: ReturnType<typeof parseLoadAvg>;
		try {
			stat = parseProcStat(readFileSync(`${procRoot}/stat`, 'utf8'));
			load = parseLoadAvg(readFileSync(`${procRoot}/loadavg`, 'utf8'));
		} catch {
			return null; // not Linux, or /proc not mounted: the meter is left out, not guessed
		}
		if (!stat) return null;
		const percent = previous ? busyPercent(previous, stat.times) : null;
		previous = stat.times;
		return {percent, cores: stat.cores, load};
	};
}
