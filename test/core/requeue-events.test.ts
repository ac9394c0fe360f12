import {describe, expect, it} from 'vitest';
import {RequeueWatch} from '../../src/core/requeue-events.js';
import type {SlurmJob} from '../../src/slurm/types.js';
import type {Checkpoint, CheckpointIndex} from '../../src/core/types.js';
import {checkpoint, checkpointIndex, NOW} from '../helpers/checkpoint-data.js';
import {slurmOk as slurmView} from '../helpers/slurm-job.js';
import {slurmState} from '../../src/slurm/scheduler-state.js';

// A SLURM requeue in the job's life: "requeued" when the restart count goes up while traintop watches, "resumed"
// when the new run's first save shows where training picked up, judged against the steps on disk from before.

const MIN = 60_000;
/** SLURM's answer as the watcher gets it: in the scheduler's terms (slurm/scheduler-state.ts). */
const slurmOk = (...args: Parameters<typeof slurmView>) => slurmState(slurmView(...args));
/** The fixture's saves: steps 500, 1000, 1200 (manual), 1500 complete, 1510 partial; the newest 30 min ago. */
const before = checkpointIndex();
/** The requeued run starts 10 min ago. */
const RESTART = NOW - 10 * MIN;

function withSaves(...saves: Checkpoint[]): CheckpointIndex {
	return checkpointIndex({checkpoints: [...before.checkpoints, ...saves]});
}

/** Watches restart 0, then sees restart 1 pending and then running: the requeued event's text. */
function requeue(watch: RequeueWatch, index: CheckpointIndex | null): string[] {
	expect(watch.update(slurmOk(NOW - 20 * MIN), index, NOW - 20 * MIN)).toEqual([]);
	const seen = watch.update(slurmOk(NOW - 15 * MIN, {restarts: 1, state: 'PENDING', reason: 'BeginTime'}), index, 1);
	return seen.map(event => `${event.kind} ${event.level} ${event.text}`);
}

const running = (fields: Partial<SlurmJob> = {}) => slurmOk(NOW, {restarts: 1, startTime: RESTART, ...fields});

describe('RequeueWatch', () => {
	it('a requeue names the newest complete checkpoint on disk (not the partial one), as a job event of slurm:J', () => {
		const watch = new RequeueWatch();
		expect(requeue(watch, before)).toEqual([
			'requeued warn SLURM job 16 requeued (restart 1); newest checkpoint on disk checkpoint_step_1500 (step 1500)',
		]);
		expect(requeue(new RequeueWatch(), null)).toEqual(['requeued warn SLURM job 16 requeued (restart 1)']);
		const partialOnly = checkpointIndex({checkpoints: [checkpoint(1510, 1, {status: 'partial'})]});
		expect(requeue(new RequeueWatch(), partialOnly)).toEqual([
			'requeued warn SLURM job 16 requeued (restart 1); no complete checkpoint in /runs/exp1',
		]);
	});

	it('resumed from the newest save before: the first save of the new run follows it', () => {
		const watch = new RequeueWatch();
		requeue(watch, before);
		// Running again, no save yet; then the old run's partial 1510 is still no save of the new run.
		expect(watch.update(running(), before, NOW)).toEqual([]);
		const first = checkpoint(1600, 2);
		const [event] = watch.update(running(), withSaves(first), NOW);
		expect(event).toMatchObject({
			kind: 'resumed',
			level: 'ok',
			job: 'slurm:16',
			checkpoint: 'checkpoint_step_1500',
			text: 'SLURM job 16 requeued (restart 1), resumed from checkpoint_step_1500 (step 1500): its first save since is checkpoint_step_1600 (step 1600)',
		});
		// Said once: the next save is the run going on.
		expect(watch.update(running(), withSaves(first, checkpoint(1700, 1)), NOW)).toEqual([]);
	});

	it('resumed from an older save (warn), or started over (critical)', () => {
		const older = new RequeueWatch();
		requeue(older, before);
		// Step 1300 rewritten by the new run: it went on from 1200, below the newest 1500.
		const [fromOlder] = older.update(running(), withSaves(checkpoint(1300, 2)), NOW);
		expect(fromOlder?.level).toBe('warn');
		expect(fromOlder?.text).toBe(
			'SLURM job 16 requeued (restart 1), resumed from checkpoint_step_1200 (step 1200), not the newest checkpoint_step_1500 (step 1500): its first save since is checkpoint_step_1300 (step 1300)',
		);
		const over = new RequeueWatch();
		requeue(over, before);
		const [fresh] = over.update(running(), withSaves(checkpoint(100, 2)), NOW);
		expect(fresh?.level).toBe('critical');
		expect(fresh?.text).toBe(
			'SLURM job 16 requeued (restart 1) started over: its first save since is checkpoint_step_100 (step 100), though checkpoint_step_1500 (step 1500) was on disk',
		);
	});

	it('an emergency save the old run finished after the requeue was seen is not the new run resuming', () => {
		const watch = new RequeueWatch();
		requeue(watch, before);
		// Written 12 min ago, before the new run started (10 min ago): the old run's last act.
		const emergency = checkpoint(1550, 12, {kind: 'emergency'});
		expect(watch.update(running(), withSaves(emergency), NOW)).toEqual([]);
		const [event] = watch.update(running(), withSaves(emergency, checkpoint(1600, 1)), NOW);
		expect(event?.text).toMatch(/resumed from checkpoint_step_1550 \(step 1550\): its first save since is/);
	});

	it('no requeue without a rise while watching: first seen at restart 2, another job, an unanswered controller', () => {
		const watch = new RequeueWatch();
		expect(watch.update(slurmOk(NOW, {restarts: 2}), before, NOW)).toEqual([]);
		expect(watch.update(slurmOk(NOW, {restarts: 2}), withSaves(checkpoint(1600, 1)), NOW)).toEqual([]);
		expect(watch.update(slurmOk(NOW, {jobId: '17', restarts: 3}), before, NOW)).toEqual([]);
		const down = slurmState({status: 'unavailable', reason: 'slurmctld not answering', readAt: NOW, last: null}, '16');
		expect(watch.update(down, before, NOW)).toEqual([]);
		expect(watch.update(null, before, NOW)).toEqual([]);
		// The controller back with the same count: nothing new.
		expect(watch.update(slurmOk(NOW, {jobId: '17', restarts: 3}), before, NOW)).toEqual([]);
	});

	it('saves without steps: the first save since is named, nothing claimed about where it resumed', () => {
		const watch = new RequeueWatch();
		requeue(watch, before);
		const [event] = watch.update(running(), withSaves(checkpoint(0, 1, {name: 'model.pt', step: null})), NOW);
		expect(event).toMatchObject({
			level: 'ok',
			text: 'SLURM job 16 requeued (restart 1): its first save since is model.pt',
			checkpoint: 'model.pt',
		});
	});
});
