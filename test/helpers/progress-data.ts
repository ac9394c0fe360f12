import type {JobProgress, WaitingRanks} from '../../src/core/progress-types.js';

/**
 * A job hung 4 minutes before `now`: rank `rank` (pid `pid`) asleep in hrtimer_nanosleep, the others as `waiting`
 * says (in futex_do_wait), as the judge words a gloo job whose rank sleeps before its all_reduce.
 */
export function hungProgress(
	job: string,
	odd: {readonly rank: number; readonly pid: number},
	waiting: Pick<WaitingRanks, 'ranks' | 'pids'>,
	now: number,
): JobProgress {
	const since = now - 240_000;
	return {
		job,
		verdict: 'hung',
		since,
		lastProgressAt: since,
		windowS: 300,
		stepS: null,
		step: null,
		odd: [{role: 'rank', ...odd, activity: 'sleeping', wchan: 'hrtimer_nanosleep', since}],
		waiting: [{...waiting, activity: 'waiting', wchan: 'futex_do_wait', since: since + 1000}],
		evidence: [{code: 'cpu-flat', rank: odd.rank, pid: odd.pid, seconds: 240}],
	};
}
