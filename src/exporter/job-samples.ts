import type {JobMemory, ProcessTrend, RankMemory} from '../core/memory-types.js';
import type {ProgressVerdict} from '../core/progress-types.js';
import type {ReadinessVerdict} from '../core/readiness-types.js';
import type {Snapshot} from '../core/types.js';
import {type Put, putStateSet} from './samples.js';

// Each job's memory (core/memory-types.ts JobMemory), its ranks' (each with its DataLoader workers, as the ranks pane
// counts them), and its readiness and progress verdicts as state sets: one series per verdict, 1 for the current one,
// so a dashboard can both show the verdict and alert on `{verdict="hung"} == 1`.

const READINESS: readonly ReadinessVerdict[] = ['ready', 'at-risk', 'not-ready', 'unknown'];
const PROGRESS: readonly ProgressVerdict[] = ['progressing', 'stalled', 'hung', 'unknown'];

/** The rank series one node adds: the bound on the response counts them before any is built (scrape.ts). */
export function rankSeriesOf(snapshot: Snapshot): number {
	let count = 0;
	for (const job of snapshot.jobMemory ?? []) count += job.ranks.length;
	return count;
}

export function putJobs(put: Put, snapshot: Snapshot, withRanks: boolean): void {
	for (const job of snapshot.jobMemory ?? []) {
		const labels = {job: job.job};
		put('traintop_job_rss_bytes', labels, job.rssBytes);
		put('traintop_job_pss_bytes', labels, job.pssBytes);
		put('traintop_job_gpu_memory_bytes', labels, job.gpuBytes);
		put('traintop_job_ranks', labels, job.ranks.length);
		put('traintop_job_memory_growth_bytes_per_minute', labels, job.growthBytesPerMin);
		if (withRanks) for (const rank of job.ranks) putRank(put, job, rank);
	}
	for (const readiness of snapshot.readiness ?? [])
		putStateSet(put, 'traintop_job_readiness', {job: readiness.job}, 'verdict', READINESS, readiness.verdict);
	for (const progress of snapshot.progress ?? [])
		putStateSet(put, 'traintop_job_progress', {job: progress.job}, 'verdict', PROGRESS, progress.verdict);
}

function putRank(put: Put, job: JobMemory, rank: RankMemory): void {
	// A process without a rank number (no RANK in its environment) has no name a series could keep across scrapes.
	if (rank.rank === null) return;
	const labels = {job: job.job, rank: String(rank.rank)};
	put('traintop_rank_rss_bytes', labels, rank.rssBytes);
	put('traintop_rank_pss_bytes', labels, rank.pssBytes);
	put('traintop_rank_gpu_memory_bytes', labels, rank.gpuBytes);
	put('traintop_rank_memory_growing', labels, growing(job.trends, rank.rank));
}

/**
 * 1 when the rank or one of its workers grows (the leak is named by its rank), 0 when each judged one does not;
 * absent when none is judged yet or none could be read: `learning` and `unknown` are not "steady".
 */
function growing(trends: readonly ProcessTrend[], rank: number): boolean | null {
	const own = trends.filter(trend => trend.rank === rank);
	if (own.some(trend => trend.state === 'growing')) return true;
	return own.some(trend => trend.state === 'steady') ? false : null;
}
