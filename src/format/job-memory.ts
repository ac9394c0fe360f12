import {type JobRamShare, jobRamShare, pssDiffers} from '../core/job-memory-share.js';
import type {JobMemory} from '../core/memory-types.js';
import type {HostMemory} from '../core/types.js';
import {jobTrendText} from './memory-trend.js';
import {formatBytes, formatPercent} from './units.js';

// A job's own memory in words, for the ranks pane's memory line and `traintop ranks`:
// `12.3 GiB PSS · RSS 14.1 GiB (workers share pages) · 9.6% of RAM (host at 43.0%) · GPU 41.0 GiB`.

function shareText(share: JobRamShare): string {
	const of =
		share.basis === 'host'
			? `of RAM (host at ${formatPercent(share.basisPercent)})`
			: `of the ${share.basis === 'job-cgroup' ? 'job ' : ''}cgroup limit ${formatBytes(share.basisBytes)} (at ${formatPercent(share.basisPercent)})`;
	return `${formatPercent(share.percent)}${share.by === 'rss' ? ' by RSS' : ''} ${of}`;
}

/** The job's RSS and PSS: PSS first (what adds up), RSS beside it where they differ by more than 5 %. */
function sizeText(memory: JobMemory): string {
	const {rssBytes: rss, pssBytes: pss} = memory;
	if (pss === null) return `${formatBytes(rss)} RSS (PSS unknown)`;
	if (!pssDiffers(rss, pss)) return `${formatBytes(pss)} PSS`;
	// Workers are forked: their copy-on-write pages are their rank's, counted again in each one's RSS.
	const workers = memory.ranks.some(rank => rank.workers.length > 0);
	return `${formatBytes(pss)} PSS · RSS ${formatBytes(rss)} (${workers ? 'workers share pages' : 'shared pages'})`;
}

/**
 * The job's memory line's words (after `memory `): sizes, its share of the RAM threshold's basis, its GPU memory, and
 * its processes' trend (a growing one named) once judged.
 */
export function jobMemoryText(memory: JobMemory, host: HostMemory | null, now = Date.now()): string {
	const share = jobRamShare(memory, host);
	const trend = jobTrendText(memory, now);
	return [
		sizeText(memory),
		...(share ? [shareText(share)] : []),
		...(memory.gpuBytes === null ? [] : [`GPU ${formatBytes(memory.gpuBytes)}`]),
		...(trend === null ? [] : [trend]),
	].join(' · ');
}
