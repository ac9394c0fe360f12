// Whether a rank computes, over a trailing window rather than one scan: a rank that waits still gets a stray clock
// tick now and then (0–3 ticks in 10 s were measured on a gloo rank blocked in all_reduce), and at a 0.5 s scan one
// tick is 2 % of a core. Over 3 s, stray ticks stay under 1 %, while a training rank, even a tiny one, uses far more.

import {COMPUTING_PERCENT} from './progress-activity.js';

/** The trailing window a rank's CPU share is judged over. */
export const TRAILING_MS = 3000;

interface Sample {
	readonly at: number;
	/** CPU ms used since the previous sample. */
	readonly cpuMs: number;
	readonly spanMs: number;
}

/** One rank's recent CPU samples; `computing` after each. */
export class CpuWindow {
	#samples: Sample[] = [];
	#lastAt: number | null = null;
	/** Epoch ms of the last scan at which it was computing; null: never seen so. */
	advancedAt: number | null = null;

	/** Adds a scan's share of a core (null on the first) and says whether the rank computes now. */
	add(at: number, cpuPercent: number | null): boolean {
		const spanMs = this.#lastAt === null ? 0 : at - this.#lastAt;
		this.#lastAt = at;
		if (cpuPercent === null || spanMs <= 0) return false;
		this.#samples.push({at, cpuMs: (cpuPercent / 100) * spanMs, spanMs});
		let covered = 0;
		let used = 0;
		let keep = 0;
		for (let i = this.#samples.length - 1; i >= 0; i--) {
			const sample = this.#samples[i]!;
			covered += sample.spanMs;
			used += sample.cpuMs;
			keep++;
			if (covered >= TRAILING_MS) break;
		}
		this.#samples = this.#samples.slice(-keep);
		// Computing: a share of a core over the window, and some of it in this very scan (not only before it).
		const computing = cpuPercent > 0 && (used / covered) * 100 >= COMPUTING_PERCENT;
		if (computing) this.advancedAt = at;
		return computing;
	}
}
