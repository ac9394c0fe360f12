import {expect, test} from 'vitest';
import type {CheckpointIndex} from '../../src/core/types.js';
import {runDirJob, withOverdueJudged} from '../../src/core/run-dir-job.js';
import {job, rankSet, T0} from './job-data.js';

// OVERDUE as the snapshot carries it: only while a job runs for the run dir, and for a job requeued after its last
// save, counted from the job's start (its old save is old, but it has only had its own run time to save in).

/** An index whose last periodic save was `ageS` ago, every `usualS` by its cadence, judged overdue by the index alone. */
function overdueIndex(ageS: number, usualS: number): CheckpointIndex {
	const time = T0 - ageS * 1000;
	return {
		runDir: '/runs/exp1',
		layouts: ['seed'],
		checkpoints: [],
		retention: {keep: null, source: 'none', count: 0, toPrune: [], groups: []},
		disk: {freeBytes: null, totalBytes: null, avgCheckpointBytes: null, savesUntilFull: null},
		lastSave: {time, ageS, medianIntervalS: usualS, periodicTime: time, overdue: true},
		warnings: [],
		scannedAt: T0,
		cadence: {
			everySteps: null,
			everySeconds: usualS,
			from: 'learned',
			source: '3 periodic saves seen',
			stepsPerSecond: null,
			nextStep: null,
			nextAt: time + usualS * 1000,
			learning: null,
			overdueAt: time + usualS * 1500,
			suspended: null,
		},
	};
}

test('a job started (requeued) after the last save: not overdue until its own run time is over a cadence and its margin', () => {
	const index = overdueIndex(7200, 600);
	// Started 10 min ago, 2 h after the last save: 600 s ≤ 600 s + the margin of half a cadence (300 s).
	const fresh = rankSet([job('torchrun:4200', 2, () => ({startedAt: T0 - 600_000}))]);
	expect(withOverdueJudged(index, fresh)?.lastSave?.overdue).toBe(false);
	// Started 20 min ago and still no save of its own: 1200 s > 900 s.
	const late = rankSet([job('torchrun:4200', 2, () => ({startedAt: T0 - 1_200_000}))]);
	expect(withOverdueJudged(index, late)?.lastSave?.overdue).toBe(true);
	// Started before the last save: the save's age is what counts (the same object back).
	const old = rankSet([job('torchrun:4200', 2, () => ({startedAt: T0 - 9_000_000}))]);
	expect(withOverdueJudged(index, old)).toBe(index);
});

test('no job running for the run dir: never overdue; the run dir names one of two jobs: that one counts', () => {
	const index = overdueIndex(7200, 600);
	expect(withOverdueJudged(index, rankSet([]))?.lastSave?.overdue).toBe(false);
	const two = rankSet([job('torchrun:4200', 1), job('torchrun:5200', 1)], {
		runDirMatch: {jobs: ['torchrun:9999'], evidence: 'command line'},
	});
	expect(runDirJob(two)).toBe('torchrun:9999');
	expect(withOverdueJudged(index, two)?.lastSave?.overdue).toBe(false);
});
