import {RingBuffer} from './ring-buffer.js';

// One metric's history for the charts: the last samples as they came (an hour at 1 s), and the whole run
// at a coarser grain in a fixed number of buckets. When the buckets are full, neighbours merge and each
// bucket covers twice the time, so a run watched for a week costs the same memory as one watched for a
// minute, and the "whole run" window still reaches back to the first sample.

export interface HistoryPoint {
	readonly time: number;
	readonly value: number;
}

export interface MetricHistoryOptions {
	/** Samples kept as they came (default 3600). */
	readonly recent?: number;
	/** Buckets that hold the whole run (default 720). */
	readonly buckets?: number;
	/** Time a bucket covers at first, in ms (default 10 s); it doubles each time the buckets fill. */
	readonly bucketMs?: number;
}

export class MetricHistory {
	readonly #recent: RingBuffer<HistoryPoint>;
	readonly #capacity: number;
	#bucketMs: number;
	#origin: number | null = null;
	/** Closed buckets, oldest first: each its start time and the highest value in it (memory peaks are what kill). */
	#buckets: HistoryPoint[] = [];
	#open: {index: number; value: number} | null = null;

	constructor(options: MetricHistoryOptions = {}) {
		this.#recent = new RingBuffer(options.recent ?? 3600);
		this.#capacity = Math.max(2, options.buckets ?? 720);
		this.#bucketMs = Math.max(1, options.bucketMs ?? 10_000);
	}

	push(time: number, value: number): void {
		this.#recent.push({time, value});
		this.#origin ??= time;
		if (this.#open && this.#open.index === this.#indexOf(time)) {
			this.#open.value = Math.max(this.#open.value, value);
			return;
		}
		if (this.#open) this.#close(this.#open);
		// After the close: it may have coarsened the buckets, and the index is on the new scale.
		this.#open = {index: this.#indexOf(time), value};
	}

	/** The newest `limit` samples as they came, oldest first. */
	latest(limit?: number): HistoryPoint[] {
		return this.#recent.toArray(limit);
	}

	/** Time of the first sample; null before it. */
	get firstTime(): number | null {
		return this.#origin;
	}

	/** Time one bucket of the whole-run history covers now, in ms. */
	get bucketMs(): number {
		return this.#bucketMs;
	}

	/**
	 * The points from `from` to `to`, oldest first, at most `bins` of them: each the highest in its share of the
	 * span (at its own time), so a chart gets what it can draw, not an hour of samples a frame. Where the samples
	 * kept as they came do not reach back to `from`, the buckets (each its span's highest) come first. A share
	 * with no point stays without one: a gap in the samples stays a gap.
	 */
	series(from: number, to: number, bins = Number.POSITIVE_INFINITY): HistoryPoint[] {
		const oldest = this.#recent.at(0);
		if (!oldest || to < from) return [];
		const out: HistoryPoint[] = [];
		const binMs = Number.isFinite(bins) && bins > 0 ? (to - from) / bins : 0;
		let lastBin = -1;
		const add = (point: HistoryPoint): void => {
			if (point.time < from || point.time > to) return;
			const bin = binMs > 0 ? Math.min(bins - 1, Math.floor((point.time - from) / binMs)) : out.length;
			const last = out.at(-1);
			if (last && bin === lastBin) {
				if (point.value > last.value) out[out.length - 1] = point;
				return;
			}
			out.push(point);
			lastBin = bin;
		};
		if (oldest.time > from) {
			for (const bucket of this.#buckets) if (bucket.time < oldest.time) add(bucket);
			// The open bucket too, where it began before the samples kept: its start would be a gap otherwise.
			const open = this.#open && this.#bucketStart(this.#open.index);
			if (this.#open && open !== null && open < oldest.time) add({time: open, value: this.#open.value});
		}
		for (let i = this.#firstAtOrAfter(from); i < this.#recent.length; i++) add(this.#recent.at(i)!);
		return out;
	}

	/** Index of the first recent sample at or after `time` (they are in time order): a binary search. */
	#firstAtOrAfter(time: number): number {
		let low = 0;
		let high = this.#recent.length;
		while (low < high) {
			const mid = (low + high) >> 1;
			if (this.#recent.at(mid)!.time < time) low = mid + 1;
			else high = mid;
		}
		return low;
	}

	#close(bucket: {index: number; value: number}): void {
		const time = this.#bucketStart(bucket.index);
		const last = this.#buckets.at(-1);
		// After a coarsening the open bucket may share its start with the last closed one: one bucket, then.
		if (last && last.time === time)
			this.#buckets[this.#buckets.length - 1] = {time, value: Math.max(last.value, bucket.value)};
		else this.#buckets.push({time, value: bucket.value});
		if (this.#buckets.length >= this.#capacity) this.#coarsen();
	}

	#indexOf(time: number): number {
		return Math.floor((time - (this.#origin ?? time)) / this.#bucketMs);
	}

	#bucketStart(index: number): number {
		return (this.#origin ?? 0) + index * this.#bucketMs;
	}

	/** Twice the time per bucket: neighbours merge, keeping the higher value. */
	#coarsen(): void {
		const origin = this.#origin ?? 0;
		this.#bucketMs *= 2;
		const merged: HistoryPoint[] = [];
		for (const bucket of this.#buckets) {
			const start = origin + Math.floor((bucket.time - origin) / this.#bucketMs) * this.#bucketMs;
			const last = merged.at(-1);
			if (last && last.time === start)
				merged[merged.length - 1] = {time: start, value: Math.max(last.value, bucket.value)};
			else merged.push({time: start, value: bucket.value});
		}
		this.#buckets = merged;
		if (this.#open) this.#open.index = Math.floor(this.#open.index / 2);
	}
}
