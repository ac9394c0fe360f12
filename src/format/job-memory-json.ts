import {jobRamShare} from '../core/job-memory-share.js';
import type {JobMemory, ProcessMemory, ProcessTrend, RankMemory} from '../core/memory-types.js';
import type {HostMemory} from '../core/types.js';
import {jobMemoryText} from './job-memory.js';

// A job's own memory as `ranks --json` writes it (jobs[].memory): snake_case, times as ISO text, every figure the
// memory line's words were made from, and the words themselves.

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const round = (n: number): number => Math.round(n * 100) / 100;

const processJson = (p: ProcessMemory) => ({pid: p.pid, rss_bytes: p.rssBytes, pss_bytes: p.pssBytes});

const rankJson = (r: RankMemory) => ({
	rank: r.rank,
	pid: r.pid,
	rss_bytes: r.rssBytes,
	pss_bytes: r.pssBytes,
	gpu_bytes: r.gpuBytes,
	self: processJson(r.self),
	workers: r.workers.map(processJson),
});

const trendJson = (t: ProcessTrend) => ({
	role: t.role,
	rank: t.rank,
	pid: t.pid,
	state: t.state,
	bytes_per_min: t.bytesPerMin,
	window_s: t.windowS,
	since: iso(t.since),
});

export function jobMemoryJson(memory: JobMemory, host: HostMemory | null): Record<string, unknown> {
	const share = jobRamShare(memory, host);
	return {
		text: jobMemoryText(memory, host),
		rss_bytes: memory.rssBytes,
		pss_bytes: memory.pssBytes,
		gpu_bytes: memory.gpuBytes,
		pss_at: iso(memory.pssAt),
		ram_share:
			share === null
				? null
				: {
						percent: round(share.percent),
						by: share.by,
						basis: share.basis,
						basis_bytes: share.basisBytes,
						basis_percent: round(share.basisPercent),
					},
		ranks: memory.ranks.map(rankJson),
		trends: memory.trends.map(trendJson),
		reaches_threshold_at: iso(memory.reachesThresholdAt),
		growth_bytes_per_min: memory.growthBytesPerMin,
	};
}
