// How the memory log writes its numbers (window.ts), kept in one place so that what `--analyze --json` prints of a
// log reads as the log itself does: a percent of 91.89 stays 91.89, not the 91.88999938964844 the float32 columns
// give back (series.ts stores values as float32 to keep a million records small).

/** Percentages: 2 decimals, as psutil and nvidia-smi give them. */
export function roundPercent(percent: number): number {
	return Math.round(percent * 100) / 100;
}

/** GiB: 3 decimals (about 1 MiB). */
export function roundGib(gib: number): number {
	return Math.round(gib * 1000) / 1000;
}

/** Seconds: to the millisecond, the precision of the log's timestamps. */
export function roundSeconds(seconds: number): number {
	return Math.round(seconds * 1000) / 1000;
}
