import type {Job, RankSet} from '../core/types.js';
import type {RankSelector} from './tree.js';
import {schedulerOf} from '../scheduler/kinds.js';

// Which one job an action goes to. A signal goes to the ranks of one job, picked explicitly (--job, a
// RUN_DIR that names it; --pid / --match narrow the search before this) or unambiguously (the only job).
// Several jobs and nothing that picks one: no job, and the caller lists them.

export type JobChoice =
	| {readonly kind: 'one'; readonly job: Job; readonly why: string}
	/** No job at all was found. */
	| {readonly kind: 'none'}
	/** Jobs were found, but none or several fit what was asked: nothing may be sent. */
	| {readonly kind: 'refused'; readonly jobs: readonly Job[]; readonly why: string};

export interface JobPick {
	/** --job: a job id (`torchrun:4242`), its launcher pid (`4242`), or its scheduler's job (`998`) or step (`998.0`). */
	readonly job?: string | null;
	/** The RUN_DIR given (the sampler matched it: RankSet.runDirMatch). */
	readonly runDir?: string | null;
	/**
	 * How ranks were searched: --pid or --match narrowed the search (said in the reason), and the one job found
	 * under a --pid is picked whatever RUN_DIR says. Absent: your processes with rank variables.
	 */
	readonly selector?: RankSelector;
}

/** `--pid 4242` / `--match REGEX` as typed; null without either. */
function selectorFlag(selector: RankSelector | undefined): string | null {
	if (selector?.kind === 'pid') return `--pid ${selector.pid}`;
	if (selector?.kind === 'match') return `--match ${selector.pattern.source}`;
	return null;
}

/**
 * Does `text` name the job: its whole id, its launcher's pid, its scheduler's job or job.step as the scheduler says
 * (only a job whose step is proven has a task). Never a part of an id: `29500` is not `rdzv:127.0.0.1:29500`, and `1`
 * not `pid:1`.
 */
export function jobMatches(job: Job, text: string): boolean {
	const wanted = text.trim();
	if (wanted === job.id || (job.launcher !== null && wanted === String(job.launcher.pid))) return true;
	const task = job.task;
	return task !== null && (schedulerOf(task)?.names(task, wanted) ?? false);
}

export function chooseJob(set: RankSet, pick: JobPick): JobChoice {
	const {jobs} = set;
	if (jobs.length === 0) return {kind: 'none'};
	if (pick.job) {
		const named = jobs.filter(job => jobMatches(job, pick.job!));
		if (named.length === 1) return {kind: 'one', job: named[0]!, why: `--job ${pick.job}`};
		return {
			kind: 'refused',
			jobs: named.length === 0 ? jobs : named,
			why: named.length === 0 ? `no job is '${pick.job}'` : `'${pick.job}' names ${named.length} jobs`,
		};
	}
	const flag = selectorFlag(pick.selector);
	const among = flag ? ` with ${flag}` : '';
	// --pid (a process the user named) that finds one job has picked it: RUN_DIR is then only where its save is
	// watched. --match is a looser net: RUN_DIR still has to name the job it catches.
	if (pick.selector?.kind === 'pid' && jobs.length === 1)
		return {kind: 'one', job: jobs[0]!, why: `the only job found${among}`};
	if (pick.runDir) {
		const match = set.runDirMatch;
		const named = jobs.filter(job => match?.jobs.includes(job.id));
		if (named.length === 1)
			return {kind: 'one', job: named[0]!, why: `${match?.evidence ?? 'RUN_DIR'} names ${pick.runDir}`};
		return {
			kind: 'refused',
			jobs: named.length === 0 ? jobs : named,
			why:
				named.length === 0
					? `no job has ${pick.runDir} on its command line, open under it or as its working directory`
					: `${named.length} jobs name ${pick.runDir} (by ${match?.evidence ?? 'their places'})`,
		};
	}
	if (jobs.length === 1) return {kind: 'one', job: jobs[0]!, why: `the only job found${among}`};
	return {kind: 'refused', jobs, why: `${jobs.length} jobs found${among} and nothing picks one`};
}
