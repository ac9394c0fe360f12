import {describe, expect, it} from 'vitest';
import {deadlineRisk} from '../../../src/core/deadline-risk.js';
import {slurmState} from '../../../src/slurm/scheduler-state.js';
import type {SlurmJob, SlurmView} from '../../../src/slurm/types.js';
import type {CheckpointIndex, Snapshot} from '../../../src/core/types.js';
import {SlurmReport} from '../../../src/slurm/views/headless-report.js';
import {slurmJob} from '../../helpers/slurm-job.js';

// The headless view's SLURM news: a line when the controller's answer changes, not every tick.

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);

const job = (fields: Partial<SlurmJob> = {}): SlurmJob => slurmJob(T0 + 60_000, fields);

function snapshot(view: SlurmView | null, time = T0, checkpoints: CheckpointIndex | null = null): Snapshot {
	const scheduler = view && slurmState(view);
	// The deadline as the Monitor judges it for this snapshot (core/deadline-risk.ts).
	const risk = scheduler?.status === 'ok' ? deadlineRisk(scheduler.job, checkpoints) : null;
	return {scheduler, deadlineRisk: risk, checkpoints, time} as unknown as Snapshot;
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

	it('a requeue shows in the job line (its restart count); an unreachable controller and an unknown job warn', () => {
		const report = new SlurmReport();
		report.update(snapshot(ok()));
		// The requeue itself is a job event (core/requeue-events.ts); here, the job as the controller now has it.
		const requeued = report.update(snapshot(ok({restarts: 1, state: 'PENDING', reason: 'BeginTime'})));
		expect(requeued.lines).toEqual([expect.stringMatching(/ · PENDING \(BeginTime\) · .* · restart 1, requeueable; /)]);
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

	it('nothing outside SLURM, and nothing before the first answer', () => {
		const report = new SlurmReport();
		expect(report.update(snapshot(null))).toEqual({lines: [], records: []});
		expect(report.update(snapshot({status: 'unavailable', reason: 'not read yet', readAt: T0, last: null}))).toEqual({
			lines: [],
			records: [],
		});
	});
});
