import type {JobMemory, ProcessMemory, ProcessTrend} from './memory-types.js';
import {MemoryTrack, TRACK_DEFAULTS, type TrackOptions} from './memory-track.js';
import {ramAgainstLimit} from './ram-limit.js';
import type {HostMemory, RankSet} from './types.js';

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

/** Each rank's start time by pid, so a reused pid is a new process to the judge (workers are known by pid alone). */
export function startTimesOf(ranks: RankSet | null): ReadonlyMap<number, number> {
	return new Map(ranks?.ranks.map(r => [r.pid, r.startTime]));
}

/** Two judgements a view words alike: the same states, rates, crossing times, and learning windows. */
function sameTrends(a: readonly JobMemory[], b: readonly JobMemory[]): boolean {
	return (
		a.length === b.length &&
		a.every((job, i) => {
			const other = b[i]!;
			return (
				job.reachesThresholdAt === other.reachesThresholdAt &&
				job.trends.length === other.trends.length &&
				job.trends.every((t, j) => {
					const u = other.trends[j]!;
					return (
						t.pid === u.pid &&
						t.state === u.state &&
						t.bytesPerMin === u.bytesPerMin &&
						(t.state !== 'learning' || t.windowS === u.windowS)
					);
				})
			);
		})
	);
}

export class MemoryTrendJudge {
	readonly #options: TrackOptions;
	readonly #tracks = new Map<string, Tracked>();
	#input: readonly JobMemory[] | null = null;
	#output: readonly JobMemory[] = [];
	#scanAt: number | undefined = undefined;

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
		scanAt?: number,
	): readonly JobMemory[] {
		// A point per rank scan: the reader hands back the same array when no figure changed (a process whose memory
		// stands still), and that is a point of a flat line, not no point at all.
		if (memory === this.#input && (scanAt === undefined || scanAt === this.#scanAt)) return this.#output;
		const sameInput = memory === this.#input;
		this.#input = memory;
		this.#scanAt = scanAt;
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
		const output = memory.map(job => {
			const ranks = job.ranks.map(r => trendOf(r.self, 'rank', r.rank));
			const workers = job.ranks.flatMap(r => r.workers.map(w => trendOf(w, 'worker', r.rank)));
			const trends = [...ranks, ...workers];
			let growth = 0;
			for (const t of trends) if (t.state === 'growing' && t.bytesPerMin !== null) growth += Math.max(0, t.bytesPerMin);
			return {...job, trends, growthBytesPerMin: growth, reachesThresholdAt: reachesAt(ram, growth, now)};
		});
		for (const key of this.#tracks.keys()) if (!seen.has(key)) this.#tracks.delete(key);
		// The same array while nothing a view shows changed: the agent sends the job's memory only when it did.
		if (!sameInput || !sameTrends(this.#output, output)) this.#output = output;
		return this.#output;
	}
}
