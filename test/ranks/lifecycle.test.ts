import {expect, test} from 'vitest';
import type {Job, RankProcess} from '../../src/core/types.js';
import {decodeWaitStatus, JobTracker} from '../../src/ranks/lifecycle.js';

function rank(pid: number, n: number): RankProcess {
	return {pid, startTime: pid, rank: n, job: 'torchrun:10'} as RankProcess;
}

function job(ranks: RankProcess[], id = 'torchrun:10'): Job {
	return {
		id,
		identity: 'elastic',
		launcher: {pid: 10, startTime: 10, cmd: 'torchrun'},
		ranks,
		worldSize: 2,
		localWorldSize: 2,
		allLocalRanksPresent: true,
		runDir: null,
		cwd: null,
		task: null,
	};
}

test('wait statuses: exit code, or the signal that killed', () => {
	expect(decodeWaitStatus(99 << 8)).toEqual({code: 99, signal: null});
	expect(decodeWaitStatus(0)).toEqual({code: 0, signal: null});
	expect(decodeWaitStatus(9)).toEqual({code: null, signal: 'SIGKILL'});
	expect(decodeWaitStatus(15 | 0x80)).toEqual({code: null, signal: 'SIGTERM'});
});

test('a rank that leaves is departed, with the exit a zombie showed; the job goes on', () => {
	const tracker = new JobTracker();
	tracker.update([job([rank(11, 0), rank(12, 1)])], 1000, () => true);
	tracker.noteExit({pid: 12, startTime: 12}, {code: null, signal: 'SIGKILL'});
	const next = tracker.update([job([rank(11, 0)])], 2000, () => true);
	expect(next.departed).toEqual([
		{role: 'rank', job: 'torchrun:10', rank: 1, pid: 12, exit: {code: null, signal: 'SIGKILL'}},
	]);
	expect(next.jobs.map(j => j.ranks.length)).toEqual([1]);
	expect(next.ended).toEqual([]);
});

test('all ranks gone but the launcher alive (a restart): the job stays, with no ranks', () => {
	const tracker = new JobTracker();
	tracker.update([job([rank(11, 0)])], 1000, () => true);
	const next = tracker.update([], 2000, () => true);
	expect(next.jobs.map(j => [j.id, j.ranks.length])).toEqual([['torchrun:10', 0]]);
	expect(next.ended).toEqual([]);
});

test("ranks and launcher gone: the job ended, with the launcher's exit when read, else rank 0's", () => {
	const tracker = new JobTracker();
	tracker.update([job([rank(11, 0), rank(12, 1)])], 1000, () => true);
	tracker.noteExit({pid: 10, startTime: 10}, {code: 99, signal: null});
	const next = tracker.update([], 2000, () => false);
	expect(next.ended).toEqual([
		{
			id: 'torchrun:10',
			launcher: {pid: 10, startTime: 10, cmd: 'torchrun'},
			ranks: 2,
			runDir: null,
			endedAt: 2000,
			exit: {code: 99, signal: null},
		},
	]);
	expect(next.departed.map(d => [d.role, d.pid])).toEqual([
		['rank', 11],
		['rank', 12],
		['launcher', 10],
	]);
	// Reported once: the next sample has no new departures, the ended job stays in the history.
	const after = tracker.update([], 3000, () => false);
	expect(after.departed).toEqual([]);
	expect(after.ended).toHaveLength(1);

	const unread = new JobTracker();
	unread.update([job([rank(11, 0)])], 1000, () => true);
	unread.noteExit({pid: 11, startTime: 11}, {code: 1, signal: null});
	expect(unread.update([], 2000, () => false).ended[0]?.exit).toEqual({code: 1, signal: null});
});
