// A GPU's sensors in words — utilisation, temperature, power — as the TUI's GPU lines and the headless status lines
// write them. An unknown value (null: nvidia-smi said `[N/A]`, `[Not Supported]` or `N/A`, or was never asked) is left
// out, never written as 0: each function returns '' for it.

function known(value: number | null | undefined): value is number {
	return value !== null && value !== undefined && Number.isFinite(value);
}

/**
 * `util 87%`: the share of time the GPU was busy (nvidia-smi's `utilization.gpu`); the number right-aligned in
 * `numberWidth` columns (`util  87%` under `util 100%`).
 */
export function utilizationText(percent: number | null | undefined, numberWidth = 0): string {
	return known(percent) ? `util ${`${Math.round(percent)}%`.padStart(numberWidth)}` : '';
}

/** `64°C` */
export function temperatureText(celsius: number | null | undefined): string {
	return known(celsius) ? `${Math.round(celsius)}°C` : '';
}

/** `312/700 W` (draw and limit, whole watts), `312 W` without a limit; '' without a draw (a limit alone says nothing). */
export function powerText(drawW: number | null | undefined, limitW: number | null | undefined): string {
	if (!known(drawW)) return '';
	return known(limitW) ? `${Math.round(drawW)}/${Math.round(limitW)} W` : `${Math.round(drawW)} W`;
}
