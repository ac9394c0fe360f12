import {RingBuffer} from './ring-buffer.js';
import type {RankSet} from './types.js';

// Each rank's RSS and CPU over time, for its detail view's chart: one bounded ring per rank, recorded at
// every rank scan and dropped when the rank leaves the scan (a pid reused later starts afresh).

export interface RankSample {
	readonly time: number;
	readonly rssBytes: number | null;
	readonly cpuPercent: number | null;
}

export class RankHistory {
	readonly #limit: number;
	readonly #byRank = new Map<string, RingBuffer<RankSample>>();

	/** `limit` samples per rank (default 900: half an hour at the 2 s rank scan). */
	constructor(limit = 900) {
		this.#limit = limit;
	}

	record(set: RankSet): void {
		const seen = new Set<string>();
		for (const rank of set.ranks) {
			const key = `${rank.pid}:${rank.startTime}`;
			seen.add(key);
			let ring = this.#byRank.get(key);
			if (!ring) {
				ring = new RingBuffer<RankSample>(this.#limit);
				this.#byRank.set(key, ring);
			}
			ring.push({time: set.sampledAt, rssBytes: rank.rssBytes, cpuPercent: rank.cpuPercent});
		}
		for (const key of this.#byRank.keys()) if (!seen.has(key)) this.#byRank.delete(key);
	}

	/** The rank's samples, oldest first; empty for a rank never scanned. */
	of(pid: number, startTime: number): RankSample[] {
		return this.#byRank.get(`${pid}:${startTime}`)?.toArray() ?? [];
	}
}
