// A GPU's health as nvidia-smi's `--query-gpu` reports it, asked in the device loop itself (one NVML session): why
// its clocks are held down, its memory's errors, retired pages and remapped rows, MIG mode, memory temperature.
// Fields a driver does not know are left out of the query (nvidia-smi refuses a whole query for one unknown field);
// their values here are then null: unknown, never "fine".

/**
 * The clock event reasons that mean a problem (`clocks_event_reasons.*`, `clocks_throttle_reasons.*` before driver
 * 535): the board capped at its power limit, the hardware slowing down (thermal, power brake, an external signal), the
 * driver's thermal slowdown. `gpu_idle` and the application-clocks setting are not problems and are not listed.
 */
export const THROTTLE_REASONS = [
	'sw_power_cap',
	'hw_slowdown',
	'hw_thermal_slowdown',
	'sw_thermal_slowdown',
	'hw_power_brake_slowdown',
] as const;

export type ThrottleReason = (typeof THROTTLE_REASONS)[number];

export interface GpuHealth {
	/** The reasons active at the sample; null when the driver reports none of the fields. */
	readonly throttle: readonly ThrottleReason[] | null;
	readonly eccMode: 'enabled' | 'disabled' | null;
	/** `ecc.errors.corrected.volatile.total`: since the driver loaded. */
	readonly eccCorrected: number | null;
	/** `ecc.errors.uncorrected.volatile.total`: the application that hit one is likely to have crashed. */
	readonly eccUncorrected: number | null;
	/** `retired_pages.pending`: a page waits for a reset to be retired (older GPUs; N/A on row-remapping ones). */
	readonly retiredPagesPending: boolean | null;
	/** `remapped_rows.pending`: a row waits for a GPU reset to be remapped. */
	readonly remappedRowsPending: boolean | null;
	/** `remapped_rows.failure`: a remap failed: the GPU needs service. */
	readonly remappedRowsFailure: boolean | null;
	readonly remappedRowsUncorrectable: number | null;
	readonly migMode: 'enabled' | 'disabled' | null;
	/** HBM temperature in °C. */
	readonly memoryTemperatureC: number | null;
}

/** Every field unknown: what a reading says before any field is read (and what a driver that reports none says). */
export const UNKNOWN_HEALTH: GpuHealth = {
	throttle: null,
	eccMode: null,
	eccCorrected: null,
	eccUncorrected: null,
	retiredPagesPending: null,
	remappedRowsPending: null,
	remappedRowsFailure: null,
	remappedRowsUncorrectable: null,
	migMode: null,
	memoryTemperatureC: null,
};
