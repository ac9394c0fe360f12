import type {JobMemory, ProcessMemory, ProcessTrend} from './memory-types.js';
import {MemoryTrack, TRACK_DEFAULTS, type TrackOptions} from './memory-track.js';
import {ramAgainstLimit} from './ram-limit.js';
import type {HostMemory} from './types.js';

// A leak named by rank: each rank's and each DataLoader worker's RSS, kept per process over the last 15 minutes
// (core/memory-track.ts) and judged at each rank scan with the robust estimator (core/robust-trend.ts). Fills
// JobMemory.trends, growthBytesPerMin and reachesThresholdAt; the events are core/memory-events.ts's.

/** The RAM metric's line: what is used and the limit it is judged against (the job's cgroup's, else the host's). */
export interface RamLine {
	readonly usedBytes: number;
	readonly limitBytes: number;
	/** The critical percent of the `ram` threshold. */
	readonly criticalPercent: number;
}

/** The RAM line as the `ram` metric judges it (core/ram-limit.ts); null without a memory reading. */
export function ramLineOf(memory: HostMemory | null, criticalPercent: number): RamLine | null {
	if (!memory) return null;
	const {usedBytes, totalBytes} = ramAgainstLimit(memory);
	return {usedBytes, limitBytes: totalBytes, criticalPercent};
}

/**
 * At `growthBytesPerMin`, the epoch ms the RAM reaches its critical line; null when nothing grows, and when it is
 * there already (its level alert says so).
 */
export function reachesAt(ram: RamLine | null, growthBytesPerMin: number, now: number): number | null {
	if (!ram || !(growthBytesPerMin > 0) || ram.limitBytes <= 0) return null;
	const room = (ram.limitBytes * ram.criticalPercent) / 100 - ram.usedBytes;
	return room > 0 ? now + (room / growthBytesPerMin) * 60_000 : null;
}

interface Tracked {
	readonly track: MemoryTrack;
	readonly role: ProcessTrend['role'];
	readonly rank: number | null;
}

export class MemoryTrendJudge {
	readonly #options: TrackOptions;
	readonly #tracks = new Map<string, Tracked>();
	#input: readonly JobMemory[] | null = null;
	#output: readonly JobMemory[] = [];

	constructor(options: Partial<TrackOptions> = {}) {
		this.#options = {...TRACK_DEFAULTS, ...options};
	}

	/**
	 * Each job's memory with its trends, at a rank scan. The same array as last time when `memory` is the same array
	 * (no new scan). `startTimes` (pid → /proc start time) tells a reused pid from the process it was; without one,
	 * a process is known by its pid, and one gone from a scan is forgotten at once (a pid comes back as another
	 * process only after the kernel has gone round all the others).
	 */
	judge(
		memory: readonly JobMemory[],
		ram: RamLine | null,
		now: number,
		startTimes?: ReadonlyMap<number, number>,
	): readonly JobMemory[] {
		if (memory === this.#input) return this.#output;
		this.#input = memory;
		const seen = new Set<string>();
		const trendOf = (p: ProcessMemory, role: ProcessTrend['role'], rank: number | null): ProcessTrend => {
			const start = startTimes?.get(p.pid);
			const key = start === undefined ? String(p.pid) : `${p.pid}@${start}`;
			seen.add(key);
			let tracked = this.#tracks.get(key);
			if (!tracked || tracked.role !== role || tracked.rank !== rank) {
				tracked = {track: new MemoryTrack(), role, rank};
				this.#tracks.set(key, tracked);
			}
			const {track} = tracked;
			track.update(p.rssBytes, now, this.#options);
			const unknown = p.rssBytes === null;
			return {
				role,
				rank,
				pid: p.pid,
				state: unknown ? 'unknown' : track.state,
				bytesPerMin: unknown ? null : track.bytesPerMin,
				windowS: track.windowS,
				since: unknown ? null : track.since,
			};
		};
		this.#output = memory.map(job => {
			const ranks = job.ranks.map(r => trendOf(r.self, 'rank', r.rank));
			const workers = job.ranks.flatMap(r => r.workers.map(w => trendOf(w, 'worker', r.rank)));
			const trends = [...ranks, ...workers];
			let growth = 0;
			for (const t of trends) if (t.state === 'growing' && t.bytesPerMin !== null) growth += Math.max(0, t.bytesPerMin);
			return {...job, trends, growthBytesPerMin: growth, reachesThresholdAt: reachesAt(ram, growth, now)};
		});
		for (const key of this.#tracks.keys()) if (!seen.has(key)) this.#tracks.delete(key);
		return this.#output;
	}
}
