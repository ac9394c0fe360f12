import type {Job, RankProcess, RankSet} from '../core/types.js';

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

function value(rank: RankProcess, sort: Exclude<RankSort, 'rank'>): number {
	const v = sort === 'rss' ? rank.rssBytes : sort === 'cpu' ? rank.cpuPercent : rank.gpuMemoryBytes;
	// Unknown values sort last, whatever the order.
	return v ?? Number.NEGATIVE_INFINITY;
}

/** The set with each job's ranks in `sort` order (ties by rank); the same object for the natural order. */
export function sortRankSet(set: RankSet, sort: RankSort): RankSet {
	if (sort === 'rank') return set;
	const jobs: Job[] = set.jobs.map(job => ({
		...job,
		ranks: [...job.ranks].sort(
			(a, b) => value(b, sort) - value(a, sort) || (a.rank ?? Infinity) - (b.rank ?? Infinity) || a.pid - b.pid,
		),
	}));
	return {...set, jobs, ranks: jobs.flatMap(job => job.ranks)};
}
