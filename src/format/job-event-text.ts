import type {CheckpointIndex, DepartedProcess, EndedJob, RankProcess} from '../core/types.js';
import {overdueText} from './checkpoints.js';
import {exitWords, jobExitWords, rankWords} from './events.js';
import {formatBytes} from './units.js';

// The job's life events in words (core/job-events.ts decides which happen, with their codes and figures): the
// text every view shows of an event, the same in the TUI, the headless lines and the agent stream.

/** What happened to one rank: its event kind, and for a resumed rank whether it was stopped (else stalled). */
export type RankChange = 'stopped' | 'stalled' | 'continued' | 'running-again';

const RANK_CHANGE: Record<Exclude<RankChange, 'stalled'>, string> = {
	stopped: 'stopped (SIGSTOP, SIGTSTP or a debugger)',
	continued: 'continued (it was stopped)',
	'running-again': 'is using CPU again',
};

/** `rank 2 (pid 4242) of torchrun:4242 stalled: state S but no CPU time for the stall window`. */
export function rankChangeText(rank: RankProcess, change: RankChange): string {
	const what =
		change === 'stalled' ? `stalled: state ${rank.state} but no CPU time for the stall window` : RANK_CHANGE[change];
	return `${rankWords(rank)} of ${rank.job} ${what}`;
}

/** `its one rank`, `all 4 ranks`. */
function allRanks(count: number): string {
	return count === 1 ? 'its one rank' : `all ${count} ranks`;
}

/** A whole job halted: every rank stopped (`stopped`), else without CPU (`stalled`: every one, not some stopped). */
export function jobHaltedText(jobId: string, ranks: number, stopped: boolean, stalled: boolean): string {
	if (stopped) return `job ${jobId} stopped: ${allRanks(ranks)} stopped (SIGSTOP, SIGTSTP or a debugger)`;
	return `job ${jobId} stalled: ${allRanks(ranks)} without CPU time for the stall window${stalled ? '' : ' or stopped'} — a hung collective?`;
}

/** `job torchrun:4242 running again: 3 of 4 ranks using CPU`. */
export function jobResumedText(jobId: string, running: number, ranks: number): string {
	return `job ${jobId} running again: ${running} of ${ranks} rank${ranks === 1 ? '' : 's'} using CPU`;
}

export function jobEndedText(job: EndedJob): string {
	return `job ${job.id} ended, ${jobExitWords(job.exit)}`;
}

export function rankExitedText(gone: DepartedProcess): string {
	return `${rankWords(gone)} of ${gone.job} ${exitWords(gone.exit)}`;
}

/** `saves OVERDUE: …` as of `now` (the index's own clock). */
export function overdueEventText(index: CheckpointIndex, now: number): string {
	return `saves OVERDUE: ${overdueText(index, now)}`;
}

/** `saved checkpoint-500 (periodic, step 500, 1.2 GiB)`. */
export function saveSeenText(c: {
	readonly name: string;
	readonly kind: string;
	readonly step: number | null;
	readonly bytes: number;
}): string {
	const step = c.step === null ? '' : `, step ${c.step}`;
	return `saved ${c.name} (${c.kind}${step}, ${formatBytes(c.bytes)})`;
}
