import type {MemoryTrendState} from './memory-types.js';
import {robustTrend} from './robust-trend.js';

// One process's RSS over the last minutes and its trend state, judged at each rank scan (core/memory-trend.ts).
// A state changes only when several judgements in a row, spread over some seconds, agree: a leak is named once it
// has been seen growing for a while, and a warm-up (a rank importing, loading its data) that stops in time never is.

export interface TrackOptions {
	/** Points older than this are dropped (default 15 min). */
	readonly windowMs: number;
	/** `learning` until the history spans this long (default 60 s)… */
	readonly learnMs: number;
	/** …and holds this many points (default 12). */
	readonly learnPoints: number;
	/** Judgements in a row that must agree before the state changes (default 3)… */
	readonly agree: number;
	/** …spread over at least this long (default 20 s: with the learning minute, a leak is named 80 s into a window). */
	readonly agreeMs: number;
	/** A growth below this many bytes per minute is never a leak (default 1 MiB/min)… */
	readonly minBytesPerMin: number;
	/** …nor below this share of the process's RSS per minute (default 0.02 %/min, 1.2 %/h). */
	readonly minSharePerMin: number;
}

export const TRACK_DEFAULTS: TrackOptions = {
	windowMs: 15 * 60_000,
	learnMs: 60_000,
	learnPoints: 12,
	agree: 3,
	agreeMs: 20_000,
	minBytesPerMin: 1024 ** 2,
	minSharePerMin: 0.0002,
};

/** A rise is consistent at the one-sided 1 % level (Mann–Kendall over the bins). */
const RISE_Z = 2.33;

/** Points dropped from the front are spliced away once this many have piled up. */
const COMPACT_AT = 256;

/** What one judgement said. */
type Verdict = 'up' | 'flat' | 'neither';

export class MemoryTrack {
	readonly #times: number[] = [];
	readonly #values: number[] = [];
	#head = 0;
	#state: Exclude<MemoryTrendState, 'unknown'> = 'learning';
	/** The verdict that differs from the state, since when and how many times in a row. */
	#streak: {verdict: Verdict; count: number; from: number} | null = null;
	#since: number | null = null;
	/** The floor's rate when it was named growing: a floor that rises at a tenth of it is not that leak. */
	#namedFloor = 0;
	#bytesPerMin: number | null = null;
	#windowS = 0;

	/** Adds the RSS read at `now` and judges again; an unreadable one (null) or a time not after the last adds nothing. */
	update(rssBytes: number | null, now: number, options: TrackOptions): void {
		if (rssBytes === null) return;
		const times = this.#times;
		if (times.length > this.#head && now <= times[times.length - 1]!) return;
		times.push(now);
		this.#values.push(rssBytes);
		while (this.#head < times.length && times[this.#head]! < now - options.windowMs) this.#head++;
		if (this.#head >= COMPACT_AT) {
			times.splice(0, this.#head);
			this.#values.splice(0, this.#head);
			this.#head = 0;
		}
		const points = times.length - this.#head;
		const span = now - times[this.#head]!;
		if (this.#state === 'learning' && (points < options.learnPoints || span < options.learnMs)) {
			this.#windowS = span / 1000;
			return;
		}
		this.#judge(rssBytes, now, options);
	}

	#judge(rssBytes: number, now: number, options: TrackOptions): void {
		const trend = robustTrend(this.#times, this.#values, this.#head, this.#times.length, {
			minSegmentPoints: options.learnPoints,
			minPoints: options.learnPoints,
			minSpanMs: options.learnMs,
			cutAtDrops: false,
			cutAtClimbs: false,
		});
		const perMin = trend.slope * 60_000;
		const floorPerMin = trend.floorSlope * 60_000;
		const line = Math.max(options.minBytesPerMin, options.minSharePerMin * rssBytes);
		// A part after a change too short to judge says nothing: the state holds.
		let verdict: Verdict = 'neither';
		if (trend.enough) {
			// The floor of its later half above that of its earlier one by half what the floor's slope says: a saw-tooth
			// with a trough in each half does not rise, whatever the slope of its last, unfinished tooth.
			const risen = trend.floorRise >= (floorPerMin * trend.spanMs) / 60_000 / 4;
			if (perMin >= line && floorPerMin >= line && trend.z >= RISE_Z && risen) verdict = 'up';
			// Leaving needs the floor clearly below the line, or far below the rate it was named at (a slow saw-tooth's
			// first tooth is a climb like any other; once it drops, its floor barely moves): in between, the state holds.
			else if (floorPerMin < Math.max(line / 2, this.#namedFloor / 10) || trend.z < RISE_Z / 2 || trend.floorRise <= 0)
				verdict = 'flat';
		}
		if (this.#state === 'learning') this.#state = 'steady';
		// The floor's rate: a leak is its floor rising, and a saw-tooth's last tooth is not a rate to show.
		this.#bytesPerMin = floorPerMin;
		this.#windowS = trend.spanMs / 1000;
		const wanted = this.#state === 'steady' ? 'up' : 'flat';
		if (verdict !== wanted) {
			this.#streak = null;
			return;
		}
		const streak = this.#streak ?? {verdict, count: 0, from: now};
		streak.count++;
		this.#streak = streak;
		if (streak.count < options.agree || now - streak.from < options.agreeMs) return;
		this.#streak = null;
		this.#state = this.#state === 'steady' ? 'growing' : 'steady';
		this.#since = this.#state === 'growing' ? trend.startTime : null;
		this.#namedFloor = this.#state === 'growing' ? floorPerMin : 0;
	}

	get state(): Exclude<MemoryTrendState, 'unknown'> {
		return this.#state;
	}

	/** The floor's robust slope, bytes per minute; null while learning. */
	get bytesPerMin(): number | null {
		return this.#state === 'learning' ? null : this.#bytesPerMin;
	}

	get windowS(): number {
		return this.#windowS;
	}

	get since(): number | null {
		return this.#since;
	}
}
