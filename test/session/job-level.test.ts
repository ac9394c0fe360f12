import {describe, expect, it} from 'vitest';
import {slurmState} from '../../src/slurm/scheduler-state.js';
import type {SlurmView} from '../../src/slurm/types.js';
import type {JobEvent, Snapshot} from '../../src/core/types.js';
import {freshestJobView, isJobLevelEvent, JobLevelEvents} from '../../src/session/job-level.js';
import {slurmJob} from '../helpers/slurm-job.js';

// The job-level view among the nodes' snapshots: the freshest controller reading, each job event once.

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);

function snapshot(host: string, view: SlurmView | null, time = T0): Snapshot {
	return {host, scheduler: view && slurmState(view, '16'), checkpoints: null, time} as unknown as Snapshot;
}

const ok = (readAt: number, timeLeftS: number): SlurmView => ({
	status: 'ok',
	job: slurmJob(T0, {timeLeftS}),
	readAt,
});

function event(job: string | null, kind: JobEvent['kind'] = 'requeued', text = 'SLURM job 16 requeued'): JobEvent {
	return {time: T0, kind, job, rank: null, pid: null, level: 'warn', text};
}

describe('freshestJobView', () => {
	it('picks the node whose controller reading is the newest', () => {
		const a = snapshot('a', ok(T0 + 1_000, 500));
		const b = snapshot('b', ok(T0 + 5_000, 496));
		const c = snapshot('c', null);
		expect(freshestJobView([a, b, c])?.host).toBe('b');
		expect(freshestJobView([b, a])?.host).toBe('b');
	});

	it('is null when no node sees a job, and the one node when there is one', () => {
		expect(freshestJobView([])).toBeNull();
		expect(freshestJobView([snapshot('a', null)])).toBeNull();
		const one = snapshot('a', ok(T0, 540));
		expect(freshestJobView([one])).toBe(one);
	});

	it('prefers an answer over a reader that has not asked yet, though the placeholder is stamped later', () => {
		const answered = snapshot('a', ok(T0, 540));
		const waiting = snapshot('b', {status: 'unavailable', reason: 'not read yet', readAt: T0 + 9_000, last: null});
		expect(freshestJobView([waiting, answered])?.host).toBe('a');
		expect(freshestJobView([waiting])?.host).toBe('b');
	});

	it('takes a newer failure over an older answer (the controller went away), and ok on a tie', () => {
		const answered = snapshot('a', ok(T0, 540));
		const failed = snapshot('b', {status: 'unavailable', reason: 'slurmctld down', readAt: T0 + 1, last: null});
		expect(freshestJobView([answered, failed])?.host).toBe('b');
		const tie = snapshot('c', {status: 'not-found', jobId: '16', readAt: T0});
		expect(freshestJobView([tie, answered])?.host).toBe('a');
	});
});

describe('job-level events', () => {
	it('are the events of the job itself, not of a step', () => {
		expect(isJobLevelEvent(event('slurm:16'))).toBe(true);
		expect(isJobLevelEvent(event('slurm:16.0', 'rank-exited'))).toBe(false);
		expect(isJobLevelEvent(event('torchrun:4242', 'rank-exited'))).toBe(false);
		expect(isJobLevelEvent(event(null, 'save-seen'))).toBe(false);
	});

	it('are said once however many nodes report them; a later requeue is news again', () => {
		const once = new JobLevelEvents();
		expect(once.first(event('slurm:16'))).toBe(true);
		expect(once.first(event('slurm:16'))).toBe(false);
		expect(once.first(event('slurm:16', 'requeued', 'SLURM job 16 requeued (restart 2)'))).toBe(true);
		expect(once.first(event('slurm:16', 'resumed', 'SLURM job 16 requeued'))).toBe(true);
	});

	it('forget the oldest past their bound', () => {
		const once = new JobLevelEvents();
		for (let i = 0; i < 65; i++) once.first(event('slurm:16', 'requeued', `restart ${i}`));
		expect(once.first(event('slurm:16', 'requeued', 'restart 0'))).toBe(true);
		expect(once.first(event('slurm:16', 'requeued', 'restart 64'))).toBe(false);
	});
});
