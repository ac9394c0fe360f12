// Stalled and running again, with hysteresis: a rank with no CPU time for the stall window is stalled; it is
// running again only after its CPU time advanced on RESUME_SAMPLES samples in a row. A job that computes in
// bursts (a data-loading wait, a slow collective) would otherwise flip stalled/running on every burst.

/** Consecutive samples with CPU progress before a stalled rank counts as running again. */
export const RESUME_SAMPLES = 3;

export interface StallState {
	readonly ticks: number;
	/** Epoch ms of the sample. */
	readonly at: number;
	/** When the CPU time last advanced. */
	readonly advancedAt: number;
	readonly stalled: boolean;
	/** Samples in a row, while stalled, on which CPU time advanced. */
	readonly progress: number;
}

export interface StallReading {
	/** utime + stime, clock ticks. */
	readonly ticks: number;
	/** /proc state letter. */
	readonly state: string;
	readonly now: number;
}

/** The next state of one rank. Only R and S can stall: D waits on a disk, T is stopped (reported as such). */
export function nextStall(previous: StallState | undefined, reading: StallReading, stallAfterMs: number): StallState {
	const {ticks, state, now} = reading;
	if (!previous) return {ticks, at: now, advancedAt: now, stalled: false, progress: 0};
	const advanced = ticks > previous.ticks;
	const advancedAt = advanced ? now : previous.advancedAt;
	const canStall = state === 'R' || state === 'S';
	if (!previous.stalled) {
		const stalled = canStall && now - advancedAt >= stallAfterMs;
		return {ticks, at: now, advancedAt, stalled, progress: 0};
	}
	const progress = advanced ? previous.progress + 1 : 0;
	const resumed = !canStall || progress >= RESUME_SAMPLES;
	return {ticks, at: now, advancedAt, stalled: !resumed, progress: resumed ? 0 : progress};
}
