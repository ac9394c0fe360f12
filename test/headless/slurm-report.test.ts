import {describe, expect, it} from 'vitest';
import type {SlurmJob, SlurmView} from '../../src/core/slurm-types.js';
import type {CheckpointIndex, Snapshot} from '../../src/core/types.js';
import {SlurmReport} from '../../src/headless/slurm-report.js';
import {checkpoint, checkpointIndex} from '../helpers/checkpoint-data.js';

// The headless view's SLURM news: a line when the controller's answer changes, not every tick.

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);

function job(fields: Partial<SlurmJob> = {}): SlurmJob {
	return {
		jobId: '16',
		arrayJobId: null,
		arrayTaskId: null,
		name: 'train',
		user: 'root',
		partition: 'debug',
		state: 'RUNNING',
		reason: null,
		nodes: 'vm',
		batchHost: 'vm',
		workDir: '/home/alice/llm',
		submitTime: T0,
		startTime: T0,
		endTime: T0 + 600_000,
		elapsedS: 60,
		timeLimitS: 600,
		timeLeftS: 540,
		restarts: 0,
		requeue: true,
		tasks: 2,
		warning: null,
		warningUnknown: null,
		steps: [],
		...fields,
	};
}

function snapshot(view: SlurmView | null, time = T0, checkpoints: CheckpointIndex | null = null): Snapshot {
	return {slurm: view, checkpoints, time} as unknown as Snapshot;
}

const ok = (fields: Partial<SlurmJob> = {}): SlurmView => ({status: 'ok', job: job(fields), readAt: T0});

describe('SlurmReport', () => {
	it('says the job once, not again while only its clock moves, and again when its state changes', () => {
		const report = new SlurmReport();
		const first = report.update(snapshot(ok()));
		expect(first.lines[0]).toMatch(
			/ SLURM job 16 train · RUNNING · root · debug · nodes vm · 2 tasks · restart 0, requeueable; time 1 m 00 s of 10 m 00 s · 9 m 00 s left/,
		);
		expect(first.lines[1]).toMatch(/time limit in 9 min; /);
		expect(first.records).toEqual([
			expect.objectContaining({
				event: 'slurm',
				status: 'ok',
				job: expect.objectContaining({job_id: '16', time_left_s: 540, restarts: 0}),
			}),
		]);
		expect(report.update(snapshot(ok({elapsedS: 70, timeLeftS: 530})))).toEqual({lines: [], records: []});
		expect(report.update(snapshot(ok({state: 'COMPLETING'}))).lines).toEqual([expect.stringMatching(/· COMPLETING ·/)]);
	});

	it('a requeue is news of its own; an unreachable controller and an unknown job warn', () => {
		const report = new SlurmReport();
		report.update(snapshot(ok()));
		const requeued = report.update(snapshot(ok({restarts: 1, state: 'PENDING', reason: 'BeginTime'})));
		expect(requeued.lines[0]).toMatch(/ WARN slurm job 16 requeued \(restart 1\)$/);
		const down = report.update(
			snapshot({status: 'unavailable', reason: 'slurmctld not answering', readAt: T0, last: job()}),
		);
		expect(down.lines).toEqual([expect.stringMatching(/ WARN slurm: slurmctld not answering$/)]);
		expect(down.records[0]).toMatchObject({
			status: 'unavailable',
			reason: 'slurmctld not answering',
			job: {job_id: '16'},
		});
		expect(report.update(snapshot({status: 'not-found', jobId: '16', readAt: T0})).lines).toEqual([
			expect.stringMatching(/ WARN slurm job 16 not found$/),
		]);
	});

	it('a requeue says the newest complete checkpoint on disk then: what the new run can resume from', () => {
		const report = new SlurmReport();
		// Step 1510 is still being written (partial), step 1500 is the newest complete one.
		const index = checkpointIndex();
		report.update(snapshot(ok(), T0, index));
		const requeued = report.update(snapshot(ok({restarts: 1, state: 'PENDING'}), T0, index));
		expect(requeued.lines[0]).toMatch(
			/ WARN slurm job 16 requeued \(restart 1\); the newest checkpoint then was checkpoint_step_1500 \(step 1500\)$/,
		);
		// A second requeue, a checkpoint without a step (a name the layout could not read one from) newest now.
		const later = checkpointIndex({
			checkpoints: [...index.checkpoints, checkpoint(0, 0, {name: 'last.ckpt', step: null, time: T0 + 1})],
		});
		expect(report.update(snapshot(ok({restarts: 2}), T0, later)).lines[0]).toMatch(
			/ requeued \(restart 2\); the newest checkpoint then was last\.ckpt$/,
		);
		// Nothing complete on disk: said, since the new run then has nothing of this run's to resume from.
		const partialOnly = checkpointIndex({checkpoints: [checkpoint(1510, 1, {status: 'partial'})]});
		expect(report.update(snapshot(ok({restarts: 3}), T0, partialOnly)).lines[0]).toMatch(
			/ requeued \(restart 3\); no complete checkpoint in \/runs\/exp1 then$/,
		);
	});

	it('nothing outside SLURM, and nothing before the first answer', () => {
		const report = new SlurmReport();
		expect(report.update(snapshot(null))).toEqual({lines: [], records: []});
		expect(report.update(snapshot({status: 'unavailable', reason: 'not read yet', readAt: T0, last: null}))).toEqual({
			lines: [],
			records: [],
		});
	});
});
