import type {Job, RankProcess, RankSet} from '../core/types.js';
import type {JobMemory} from '../core/memory-types.js';

// The ranks table's order, chosen with a key: by rank (as discovery lists them), or by RSS, CPU or GPU memory,
// largest first, within each job (a job's ranks stay under its header: sorting never mixes jobs).

export type RankSort = 'rank' | 'rss' | 'cpu' | 'gpu';

const ORDER: readonly RankSort[] = ['rank', 'rss', 'cpu', 'gpu'];

/** The next order in the cycle the key steps through. */
export function nextSort(sort: RankSort): RankSort {
	return ORDER[(ORDER.indexOf(sort) + 1) % ORDER.length]!;
}

/** The title's words for it; null for the natural order, which needs none. */
export function sortLabel(sort: RankSort): string | null {
	return sort === 'rank' ? null : `sorted by ${{rss: 'RSS', cpu: 'CPU', gpu: 'GPU memory'}[sort]} ↓`;
}

/** `rss`: the rank with its workers where its memory was read, as the RSS column shows it. */
function value(rank: RankProcess, sort: Exclude<RankSort, 'rank'>, rss: ReadonlyMap<number, number | null>): number {
	const own = rss.get(rank.pid) ?? rank.rssBytes;
	const v = sort === 'rss' ? own : sort === 'cpu' ? rank.cpuPercent : rank.gpuMemoryBytes;
	// Unknown values sort last, whatever the order.
	return v ?? Number.NEGATIVE_INFINITY;
}

/**
 * The set with each job's ranks in `sort` order (ties by rank); the same object for the natural order. `memory`: each
 * job's (snapshot.jobMemory), whose rank + workers RSS the RSS order follows.
 */
export function sortRankSet(set: RankSet, sort: RankSort, memory: readonly JobMemory[] = []): RankSet {
	if (sort === 'rank') return set;
	const rss = new Map(memory.flatMap(m => m.ranks.map(r => [r.pid, r.rssBytes] as const)));
	const jobs: Job[] = set.jobs.map(job => ({
		...job,
		ranks: [...job.ranks].sort(
			(a, b) =>
				value(b, sort, rss) - value(a, sort, rss) || (a.rank ?? Infinity) - (b.rank ?? Infinity) || a.pid - b.pid,
		),
	}));
	return {...set, jobs, ranks: jobs.flatMap(job => job.ranks)};
}
