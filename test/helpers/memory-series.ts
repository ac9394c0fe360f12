// Generated memory series for the trend tests (core/robust-trend.ts, core/memory-trend.ts, --analyze): a value per
// sample time from a profile, with seeded noise so every run sees the same series.

export const MIB = 1024 ** 2;
export const GIB = 1024 ** 3;

/** A small seeded generator (mulberry32): uniform in [0, 1). */
export function seeded(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Roughly normal noise of standard deviation `sigma` (the sum of four uniforms). */
export function noise(random: () => number, sigma: number): () => number {
	return () => (random() + random() + random() + random() - 2) * sigma * Math.sqrt(3);
}

/** A profile: the value at `t` seconds from the start. */
export type Profile = (t: number) => number;

export function linear(start: number, perMinute: number): Profile {
	return t => start + (perMinute * t) / 60;
}

/** Allocate linearly over each `period` s, free it all at its end: the floor stays at `floor`. */
export function sawTooth(floor: number, amplitude: number, period: number): Profile {
	return t => floor + amplitude * ((t % period) / period);
}

/** `before` until `at` s, then `after` (both given the time from the start). Not named `then`: a module exporting
 * `then` is a thenable, and awaiting its import never settles. */
export function switchAt(before: Profile, at: number, after: Profile): Profile {
	return t => (t < at ? before(t) : after(t));
}

export function flat(level: number): Profile {
	return () => level;
}

/** Samples every `stepS` s for `durationS` s from `t0` ms: times in ms and values, with `sigma` of noise. */
export function sample(
	profile: Profile,
	durationS: number,
	stepS: number,
	sigma = 0,
	seed = 1,
	t0 = Date.parse('2026-11-22T10:00:00Z'),
): {times: number[]; values: number[]} {
	const jitter = noise(seeded(seed), sigma);
	const times: number[] = [];
	const values: number[] = [];
	for (let i = 0; i * stepS <= durationS + 1e-9; i++) {
		const t = i * stepS;
		times.push(t0 + Math.round(t * 1000));
		values.push(profile(t) + (sigma > 0 ? jitter() : 0));
	}
	return {times, values};
}
