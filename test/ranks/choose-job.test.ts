import {expect, test} from 'vitest';
import type {Job, RankSet} from '../../src/core/types.js';
import {chooseJob, jobMatches} from '../../src/ranks/choose-job.js';

function job(id: string, launcherPid: number | null, slurm: {jobId: string; stepId: string} | null = null): Job {
	return {
		id,
		identity: 'launcher',
		launcher: launcherPid === null ? null : {pid: launcherPid, startTime: 1, cmd: 'x'},
		ranks: [],
		worldSize: null,
		localWorldSize: null,
		allLocalRanksPresent: true,
		runDir: null,
		cwd: null,
		task: slurm && {scheduler: 'slurm', ...slurm, restartCount: 0, taskId: 0},
	};
}

function set(jobs: Job[], runDirMatch: RankSet['runDirMatch'] = null): RankSet {
	return {ranks: [], jobs, launcher: null, departed: [], ended: [], runDirMatch, sampledAt: 0};
}

const A = job('torchrun:100', 100);
const B = job('slurm:4242.0', null, {jobId: '4242', stepId: '0'});

test('jobMatches: the id, the launcher pid, the SLURM job or job.step', () => {
	expect(['torchrun:100', '100'].map(t => jobMatches(A, t))).toEqual([true, true]);
	expect(['slurm:4242.0', '4242', '4242.0', '4242.0 '].map(t => jobMatches(B, t))).toEqual([true, true, true, true]);
	expect(['10', '4243', 'torchrun'].map(t => jobMatches(A, t) || jobMatches(B, t))).toEqual([false, false, false]);
});

test('jobMatches takes whole ids only: a port, a pid or another tail of an id names no job', () => {
	const rdzv = job('rdzv:127.0.0.1:29500', null);
	const lone = job('pid:501', null);
	expect(['29500', '0.1:29500', '127.0.0.1:29500'].map(t => jobMatches(rdzv, t))).toEqual([false, false, false]);
	expect(jobMatches(rdzv, 'rdzv:127.0.0.1:29500')).toBe(true);
	expect([jobMatches(lone, '501'), jobMatches(lone, 'pid:501')]).toEqual([false, true]);
	expect(chooseJob(set([A, rdzv]), {job: '29500'})).toEqual({
		kind: 'refused',
		jobs: [A, rdzv],
		why: "no job is '29500'",
	});
});

test('one job found: it; several and nothing that picks one: refused, listing them all', () => {
	expect(chooseJob(set([A]), {})).toMatchObject({kind: 'one', job: A, why: 'the only job found'});
	expect(chooseJob(set([]), {})).toEqual({kind: 'none'});
	expect(chooseJob(set([A, B]), {})).toEqual({
		kind: 'refused',
		jobs: [A, B],
		why: '2 jobs found and nothing picks one',
	});
});

test('--job picks one; a --job that names none is refused', () => {
	expect(chooseJob(set([A, B]), {job: '4242'})).toMatchObject({kind: 'one', job: B});
	expect(chooseJob(set([A, B]), {job: '999'})).toMatchObject({kind: 'refused', why: "no job is '999'"});
});

test('RUN_DIR picks the job that names it; none or several naming it: refused', () => {
	const named = set([A, B], {jobs: ['slurm:4242.0'], evidence: 'command line'});
	expect(chooseJob(named, {runDir: '/runs/b'})).toMatchObject({kind: 'one', job: B, why: 'command line names /runs/b'});
	const nobody = set([A, B], {jobs: [], evidence: null});
	expect(chooseJob(nobody, {runDir: '/runs/c'})).toMatchObject({kind: 'refused', jobs: [A, B]});
	// Even with only one job found: a RUN_DIR that it does not use does not name it.
	expect(chooseJob(set([A], {jobs: [], evidence: null}), {runDir: '/runs/c'}).kind).toBe('refused');
	// …unless --pid found that one job: it is picked, RUN_DIR is only where its save is watched (--match is not enough).
	expect(
		chooseJob(set([A], {jobs: [], evidence: null}), {runDir: '/runs/c', selector: {kind: 'match', pattern: /t/}}).kind,
	).toBe('refused');
	expect(
		chooseJob(set([A], {jobs: [], evidence: null}), {runDir: '/runs/c', selector: {kind: 'pid', pid: 100}}),
	).toMatchObject({
		kind: 'one',
		job: A,
		why: 'the only job found with --pid 100',
	});
	const both = set([A, B], {jobs: ['torchrun:100', 'slurm:4242.0'], evidence: 'parent working directory'});
	expect(chooseJob(both, {runDir: '/runs/x'})).toMatchObject({kind: 'refused', jobs: [A, B]});
});
