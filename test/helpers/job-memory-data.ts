import type {JobMemory, RankMemory} from '../../src/core/memory-types.js';
import type {RankSet} from '../../src/core/types.js';

// Each job's memory as ranks/job-memory.ts makes it, for a rank set of test/ui/fixtures.ts: each rank's own RSS is
// the scan's, each worker holds `workerRss` by RSS and `workerPss` by PSS, the rank itself `selfPss` by PSS.

export function jobMemoryOf(
	set: RankSet,
	{
		workerRss = 2 * 1024 ** 3,
		workerPss = 0.5 * 1024 ** 3,
		selfPss = 2.5 * 1024 ** 3,
		pssAt = set.sampledAt,
	}: {workerRss?: number; workerPss?: number | null; selfPss?: number | null; pssAt?: number | null} = {},
): JobMemory[] {
	const sum = (values: readonly (number | null)[]) =>
		values.some(v => v === null) ? null : values.reduce<number>((a, b) => a + (b ?? 0), 0);
	return set.jobs.map(job => {
		const ranks: RankMemory[] = job.ranks.map(rank => {
			const workers = rank.workers.map(pid => ({pid, rssBytes: workerRss, pssBytes: workerPss}));
			const self = {pid: rank.pid, rssBytes: rank.rssBytes, pssBytes: selfPss};
			return {
				rank: rank.rank,
				pid: rank.pid,
				self,
				workers,
				rssBytes: rank.rssBytes === null ? null : rank.rssBytes + workers.length * workerRss,
				pssBytes: sum([selfPss, ...workers.map(w => w.pssBytes)]),
				gpuBytes: rank.gpuMemoryBytes,
			};
		});
		return {
			job: job.id,
			ranks,
			rssBytes: sum(ranks.map(r => r.rssBytes)),
			pssBytes: sum(ranks.map(r => r.pssBytes)),
			gpuBytes: sum(ranks.map(r => r.gpuBytes)),
			pssAt,
			trends: [],
			reachesThresholdAt: null,
			growthBytesPerMin: 0,
		};
	});
}
