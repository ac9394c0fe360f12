import type {GpuHealth, ThrottleReason} from './gpu-health-types.js';
import type {Level} from './level.js';

// What a GPU's health readings (core/gpu-health-types.ts) mean, as codes and levels: the words are format/gpu-health.ts,
// the alerts with their hysteresis gpu-health-judge.ts. Unknown (null) is never a problem: a driver that does not
// report a field has said nothing about it.
//
// Levels, from nvidia-smi's own descriptions (`--help-query-gpu`, driver 580, recorded on an H200):
// - `sw_power_cap`: "SW Power Scaling algorithm is reducing the clocks … because the GPU is consuming too much power".
//   A GPU at full load sits at its power limit (the H200 recording: Active from the first busy second, at 690 of
//   700 W): normal, shown on the GPU line, never an alert.
// - the hardware slowdowns ("reducing the core clocks by a factor of 2 or more": thermal, power brake, or either
//   behind `hw_slowdown`) and the driver's thermal slowdown ("GPU temperature is higher than Max Operating Temp"):
//   the job runs at a fraction of its speed: warn.
// - an uncorrectable ECC error since the driver loaded ("Double bit errors are detected but not corrected"): the
//   process that hit it most likely died or computed garbage; a failed row remap: the GPU needs service: critical.
// - corrected errors rising, a page waiting for retirement or a row for a remap (both need a GPU reset): warn.
// - MIG mode on: the GPU is split into instances; the memory figures are the whole GPU's: said, not alerted.

export type GpuHealthCode =
	| 'power-cap'
	| 'hw-slowdown'
	| 'thermal-slowdown'
	| 'sw-thermal-slowdown'
	| 'power-brake'
	| 'ecc-uncorrected'
	| 'ecc-corrected-rising'
	| 'retired-pages-pending'
	| 'remapped-rows-pending'
	| 'remap-failure'
	| 'mig-on';

export interface GpuHealthProblem {
	readonly code: GpuHealthCode;
	/** 'ok' for what is shown but never alerted (power cap, MIG). */
	readonly level: Level;
	/** The count behind it (uncorrectable or corrected ECC errors); null for a flag. */
	readonly count: number | null;
}

const THROTTLE_CODES: Readonly<Record<ThrottleReason, GpuHealthCode>> = {
	sw_power_cap: 'power-cap',
	hw_slowdown: 'hw-slowdown',
	hw_thermal_slowdown: 'thermal-slowdown',
	sw_thermal_slowdown: 'sw-thermal-slowdown',
	hw_power_brake_slowdown: 'power-brake',
};

/**
 * A GPU's problems at one sample, worst first. `hw_slowdown` is the umbrella of the thermal and power-brake
 * slowdowns (nvidia-smi's help): said on its own only when neither of those says why.
 */
export function gpuHealthProblems(health: GpuHealth | null | undefined): GpuHealthProblem[] {
	if (!health) return [];
	const problems: GpuHealthProblem[] = [];
	const add = (code: GpuHealthCode, level: Level, count: number | null = null) => problems.push({code, level, count});
	if (health.eccUncorrected !== null && health.eccUncorrected > 0)
		add('ecc-uncorrected', 'critical', health.eccUncorrected);
	if (health.remappedRowsFailure === true) add('remap-failure', 'critical');
	const throttle = health.throttle ?? [];
	const explained = throttle.includes('hw_thermal_slowdown') || throttle.includes('hw_power_brake_slowdown');
	for (const reason of throttle) {
		if (reason === 'sw_power_cap' || (reason === 'hw_slowdown' && explained)) continue;
		add(THROTTLE_CODES[reason], 'warn');
	}
	if (health.remappedRowsPending === true) add('remapped-rows-pending', 'warn');
	if (health.retiredPagesPending === true) add('retired-pages-pending', 'warn');
	if (throttle.includes('sw_power_cap')) add('power-cap', 'ok');
	if (health.migMode === 'enabled') add('mig-on', 'ok');
	return problems;
}

/** The worst level among a GPU's problems: how its health words on the GPU line are painted. */
export function worstHealthLevel(problems: readonly GpuHealthProblem[]): Level {
	if (problems.some(p => p.level === 'critical')) return 'critical';
	return problems.some(p => p.level === 'warn') ? 'warn' : 'ok';
}
