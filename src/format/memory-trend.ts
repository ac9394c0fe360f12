import type {JobMemory, ProcessTrend} from '../core/memory-types.js';
import {formatDuration} from './duration.js';
import {localTimeShort} from './time.js';
import {formatBytes} from './units.js';

// A process's memory trend in words (core/memory-trend.ts judges it): the leak events' text and the short tag the
// ranks pane shows beside a rank's RSS.

/** `+20 MiB/min`, `-1.5 MiB/min`: a rate with its sign, no `.0`. */
export function rateText(bytesPerMin: number): string {
	const size = formatBytes(Math.abs(bytesPerMin)).replace('.0 ', ' ');
	return `${bytesPerMin < 0 ? '-' : '+'}${size}/min`;
}

/** `rank 1 (pid 4242)`, or `rank 1's DataLoader worker (pid 4300)`. */
function whose(trend: Pick<ProcessTrend, 'role' | 'rank' | 'pid'>): string {
	const rank = `rank ${trend.rank ?? '?'}`;
	return trend.role === 'rank' ? `${rank} (pid ${trend.pid})` : `${rank}'s DataLoader worker (pid ${trend.pid})`;
}

/** `14:02` today, else `2026-11-23 14:02`: local time to the minute. */
const minuteText = (at: number, now: number) => localTimeShort(at, now).slice(0, -3);

/**
 * `rank 1 (pid 4242) of torchrun:4200: RSS grows 20 MiB/min; at this rate the job reaches the RAM threshold at
 * 14:02`. Without a time (nothing to reach, or no RAM reading), the rate alone.
 */
export function memoryGrowingText(trend: ProcessTrend, job: string, reachesAt: number | null, now: number): string {
	const rate = trend.bytesPerMin === null ? 'grows' : `grows ${rateText(trend.bytesPerMin).slice(1)}`;
	const when =
		reachesAt === null ? '' : `; at this rate the job reaches the RAM threshold at ${minuteText(reachesAt, now)}`;
	return `${whose(trend)} of ${job}: RSS ${rate}${when}`;
}

/** `rank 1 (pid 4242) of torchrun:4200: RSS steady again (+0.2 MiB/min)`. */
export function memorySteadyText(trend: ProcessTrend, job: string): string {
	const rate = trend.bytesPerMin === null ? '' : ` (${rateText(trend.bytesPerMin)})`;
	return `${whose(trend)} of ${job}: RSS steady again${rate}`;
}

/** The ranks pane's tag: `+20 MiB/min` while growing, `learning 40 s`, `steady`, or `?` when unreadable. */
export function trendTag(trend: ProcessTrend): string {
	switch (trend.state) {
		case 'growing':
			return trend.bytesPerMin === null ? 'growing' : rateText(trend.bytesPerMin);
		case 'learning':
			return `learning ${formatDuration(Math.round(trend.windowS))}`;
		case 'steady':
			return 'steady';
		case 'unknown':
			return '?';
	}
}

/**
 * The job's memory line's trend part: the growing processes with their rates and when the job reaches the RAM
 * threshold at that rate (`rank 1 +20 MiB/min, RAM threshold at 14:02`), `trend learning 40 s` while every process
 * is still learning, `no growth` once judged; null before any judgement.
 */
export function jobTrendText(
	memory: Pick<JobMemory, 'trends' | 'reachesThresholdAt' | 'job'>,
	now: number,
): string | null {
	const {trends} = memory;
	if (trends.length === 0) return null;
	const growing = trends.filter(t => t.state === 'growing');
	if (growing.length > 0) {
		const who = (t: ProcessTrend) => `rank ${t.rank ?? '?'}${t.role === 'worker' ? ` worker ${t.pid}` : ''}`;
		const named = growing.slice(0, 2).map(t => `${who(t)} ${trendTag(t)}`);
		if (growing.length > 2) named.push(`${growing.length - 2} more`);
		const at = memory.reachesThresholdAt;
		return `${named.join(', ')}${at === null ? '' : `, RAM threshold at ${minuteText(at, now)}`}`;
	}
	if (trends.every(t => t.state === 'learning'))
		return `trend learning ${formatDuration(Math.round(Math.max(...trends.map(t => t.windowS))))}`;
	return trends.every(t => t.state === 'unknown') ? null : 'no growth';
}
