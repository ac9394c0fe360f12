// Sizes and percentages as every view writes them. Sizes are binary (KiB = 1024 B), as the kernel,
// nvidia-smi and the memory log count them; percentages are 0–100 with one decimal.

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/**
 * `512 B`, `1.5 KiB`, `100 MiB`, `3.3 GiB`: one decimal below 100 of a unit, none above (a
 * column of sizes stays narrow), whole bytes always. Null or not finite is `-`, an unknown size
 * in a table; a negative size (headroom already used up) keeps its sign.
 */
export function formatBytes(bytes: number | null): string {
	if (bytes === null || !Number.isFinite(bytes)) return '-';
	if (bytes < 0) return `-${formatBytes(-bytes)}`;
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < UNITS.length - 1) {
		value /= 1024;
		unit++;
	}
	let text = digits(value, unit);
	// 1023.96 KiB rounds to 1024: say 1.0 MiB instead.
	if (Number(text) >= 1024 && unit < UNITS.length - 1) {
		value /= 1024;
		unit++;
		text = digits(value, unit);
	}
	return `${text} ${UNITS[unit]}`;
}

function digits(value: number, unit: number): string {
	return unit === 0 || Number(value.toFixed(1)) >= 100 ? value.toFixed(0) : value.toFixed(1);
}

/**
 * `17M`, `1.5G`: the ps-like short form for `traintop ranks`' plain table, where every column is
 * taken from the command line at the end. Whole MiB below a GiB (a rank's RSS is never a few KiB),
 * GiB with one decimal above. Null or not finite is `-`.
 */
export function formatBytesShort(bytes: number | null): string {
	if (bytes === null || !Number.isFinite(bytes)) return '-';
	if (bytes < 0) return `-${formatBytesShort(-bytes)}`;
	const mib = Math.round(bytes / 1024 ** 2);
	// As formatBytes: what rounds to 1024M is written 1.0G.
	return mib < 1024 ? `${mib}M` : `${(bytes / 1024 ** 3).toFixed(1)}G`;
}

/** `12.5%`, one decimal; null or not finite (a device that does not report its memory) is `n/a`. */
export function formatPercent(value: number | null): string {
	return value === null || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(1)}%`;
}

/** `90%`, `87.5%`: thresholds are usually whole numbers, so no `.0`; at most one decimal. */
export function formatThreshold(threshold: number): string {
	return `${Number(threshold.toFixed(1))}%`;
}
