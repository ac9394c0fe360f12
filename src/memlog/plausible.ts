import type {RecordFields} from './record-fields.js';

// The ranges a value `--analyze` reads must be in for its record to count. The schema only asks for finite
// numbers, so a record with `memory.percent` 250 or 1e308 entered the statistics (a mean of 2.4e+27, a trend of
// NaN %/h: 1e308 is Infinity in the Float32 columns). Such a record is skipped with the field, its value and the
// range. Only the values the analysis reads are checked (a record's temperature or utilisation, which it does not
// read, cannot spoil a report): the byte scanner (scan-line.ts) and the slow path (check-record.ts) both call this
// on the fields they filled, so the two paths keep agreeing on what a record is.

/** One point above 100: a usage and its total read a moment apart; rounding alone never passes 100. */
const PERCENT_MAX = 101;
/** A cgroup's usage can stay above a limit lowered beneath it until the kernel has reclaimed (or OOM-killed). */
const CGROUP_PERCENT_MAX = 200;
/** 1 PiB in GiB: more memory than any one machine has, and small enough for the Float32 columns. */
const GIB_MAX = 1024 * 1024;
/** The longest --log-interval. */
const INTERVAL_MAX = 86_400;

const PERCENT = `a percentage: 0 to ${PERCENT_MAX}`;
const GIB = 'GiB: 0 to 1 PiB';

/** NaN is "absent": the schema already decided whether the field may be. */
const within = (v: number, min: number, max: number): boolean => Number.isNaN(v) || (v >= min && v <= max);

function outside(field: string, value: number, range: string): string {
	return `${field}: ${value} is out of range (${range})`;
}

/** Why the record's fields cannot be true (the first value out of range), or null when they can. */
export function outOfRange(f: RecordFields): string | null {
	if (!within(f.interval, 0, INTERVAL_MAX)) return outside('interval_s', f.interval, `seconds: 0 to ${INTERVAL_MAX}`);
	if (f.memory) {
		if (!within(f.memPercent, 0, PERCENT_MAX)) return outside('memory.percent', f.memPercent, PERCENT);
		if (!within(f.memPeak, 0, PERCENT_MAX)) return outside('memory.peak_percent', f.memPeak, PERCENT);
		if (!within(f.memUsed, 0, GIB_MAX)) return outside('memory.used_gb', f.memUsed, GIB);
		if (f.cgroup) {
			const cgroup = `a percentage of a cgroup limit: 0 to ${CGROUP_PERCENT_MAX}`;
			if (!within(f.cgPercent, 0, CGROUP_PERCENT_MAX)) return outside('memory.cgroup.percent', f.cgPercent, cgroup);
			if (!within(f.cgPeak, 0, CGROUP_PERCENT_MAX)) return outside('memory.cgroup.peak_percent', f.cgPeak, cgroup);
			if (!within(f.cgUsed, 0, GIB_MAX)) return outside('memory.cgroup.used_gb', f.cgUsed, GIB);
			if (!within(f.cgLimit, 0, GIB_MAX)) return outside('memory.cgroup.limit_gb', f.cgLimit, GIB);
		}
	}
	if (f.swap) {
		if (!within(f.swapPercent, 0, PERCENT_MAX)) return outside('swap.percent', f.swapPercent, PERCENT);
		if (!within(f.swapPeak, 0, PERCENT_MAX)) return outside('swap.peak_percent', f.swapPeak, PERCENT);
		if (!within(f.swapTotal, 0, GIB_MAX)) return outside('swap.total_gb', f.swapTotal, GIB);
	}
	if (f.gpu) {
		if (!within(f.gpuPercent, 0, PERCENT_MAX)) return outside('gpu.memory_percent', f.gpuPercent, PERCENT);
		if (!within(f.gpuPeak, 0, PERCENT_MAX)) return outside('gpu.peak_memory_percent', f.gpuPeak, PERCENT);
	}
	for (let d = 0; d < f.devices; d++) {
		const percent = f.devPercent[d]!;
		if (!within(percent, 0, PERCENT_MAX)) return outside(`gpus[${d}].memory_percent`, percent, PERCENT);
		const peak = f.devPeak[d]!;
		if (!within(peak, 0, PERCENT_MAX)) return outside(`gpus[${d}].peak_memory_percent`, peak, PERCENT);
		const threshold = f.devThreshold[d]!;
		// As --gpu-thresholds and the config take it: above 0, at most 100.
		if (!Number.isNaN(threshold) && !(threshold > 0 && threshold <= 100))
			return outside(`gpus[${d}].threshold`, threshold, 'a threshold: above 0, at most 100');
	}
	const restarts = f.schedulerRestarts;
	if (!Number.isNaN(restarts) && !(Number.isInteger(restarts) && restarts >= 0))
		return outside(`${f.schedulerKey}.restart_count`, restarts, 'a whole number, 0 or more');
	return null;
}
