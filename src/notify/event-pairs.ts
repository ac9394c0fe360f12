import type {JobEvent, JobEventKind} from '../core/job-types.js';

// How job events make episodes (core/job-events.ts, progress-events.ts, memory-events.ts, gpu-health-judge.ts make
// them): which kind ends which (a hang ends when the job progresses again), which kinds say both (gpu-health at a
// level is a problem, at ok its end), which are told once, and what an episode is about, so that a raise and its end
// meet in the same episode.

/** The kinds an event of this kind ends: job-progressing ends job-hung, a save ends overdue. */
export const RAISES_CLEARED_BY: Partial<Readonly<Record<JobEventKind, readonly JobEventKind[]>>> = {
	'job-progressing': ['job-hung'],
	'job-resumed': ['job-stalled'],
	'rank-resumed': ['rank-stalled', 'rank-stopped'],
	'save-seen': ['overdue'],
	'memory-steady': ['memory-growing'],
};

/** Kinds whose event at a level raises and at ok ends the same kind's episode. */
export const STATE_KINDS: ReadonlySet<JobEventKind> = new Set([
	'gpu-health',
	'run-dir-access',
	'node-link',
	'node-declared',
]);

/** Kinds with no end: a rank's exit, the job's end, a requeue, a resume, a run dir replaced, a save. */
export const ONCE_KINDS: ReadonlySet<JobEventKind> = new Set([
	'rank-exited',
	'job-ended',
	'requeued',
	'resumed',
	'run-dir-replaced',
	'save-seen',
]);

/**
 * What an episode of `kind` is about, read from the event at hand (the raise or the event that ends it): a rank's
 * stall is its job's rank, a growing process its job's pid, a GPU's health its GPU, everything else its job. A
 * rank-exited is its job's: eight ranks that die together are one notice.
 */
export function eventSubject(kind: string, event: JobEvent): string {
	const job = event.job ?? '-';
	switch (kind) {
		case 'rank-stalled':
		case 'rank-stopped':
			return `${job} ${event.rank === null ? `pid ${event.pid}` : `rank ${event.rank}`}`;
		case 'memory-growing':
			return `${job} pid ${event.pid}`;
		case 'gpu-health':
			// An older agent's event names no GPU: its node's GPUs share one episode.
			return event.gpu === undefined ? job : `GPU${event.gpu}`;
		default:
			return job;
	}
}
