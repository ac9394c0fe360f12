import {requeuedText, resumedText, type ResumeFacts} from '../format/requeue.js';
import type {SchedulerJob, SchedulerState} from '../scheduler/types.js';
import type {Checkpoint, CheckpointIndex, JobEvent, Level} from './types.js';

// A requeue as the job's life sees it. A scheduler's requeue (`scontrol requeue`, a preemption, a node failure, a
// pod restarted) ends the run and starts the same job again with its restart count + 1, from the start of its script.
// Two events: "requeued" when the scheduler's answer shows the new restart count, and "resumed" when the new run's
// first save appears. What a job loads on restart is its own choice, so "resumed from" is read from that first
// save's step against the steps on disk from before: the newest of them below it is where training picked up.
// Figures and codes here; the words are format/requeue.ts's.

/** The run the watcher waits on: this job's restart `restarts`. */
interface Pending {
	readonly jobId: string;
	readonly restarts: number;
}

function event(job: SchedulerJob, kind: JobEvent['kind'], level: Level, text: string, time: number, name?: string) {
	const base: JobEvent = {time, kind, job: job.eventJob, rank: null, pid: null, level, text};
	return name === undefined ? base : {...base, checkpoint: name};
}

function newestComplete(checkpoints: readonly Checkpoint[]): Checkpoint | null {
	let newest: Checkpoint | null = null;
	for (const c of checkpoints) if (c.status === 'complete' && (newest === null || c.time >= newest.time)) newest = c;
	return newest;
}

function requeuedEvent(name: string, job: SchedulerJob, index: CheckpointIndex | null, time: number): JobEvent {
	const newest = index === null ? null : newestComplete(index.checkpoints);
	const text = requeuedText(
		{scheduler: name, jobId: job.id, restarts: job.restarts},
		index && {runDir: index.runDir, newest},
	);
	return event(job, 'requeued', 'warn', text, time, newest?.name);
}

/** How the new run's first save stands against the saves from before it (ResumeFacts.how), and its level. */
function resumeOf(first: Checkpoint, before: readonly Checkpoint[]): {facts: Omit<ResumeFacts, 'head'>; level: Level} {
	const stepped = before.filter(c => c.step !== null).sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
	if (first.step === null || stepped.length === 0) return {facts: {how: 'first-only', first}, level: 'ok'};
	const from = stepped.filter(c => (c.step ?? 0) < (first.step ?? 0)).at(-1);
	const newest = stepped.at(-1)!;
	if (from === undefined) return {facts: {how: 'started-over', first, newest}, level: 'critical'};
	if (from.step !== newest.step) return {facts: {how: 'older', first, from, newest}, level: 'warn'};
	return {facts: {how: 'newest', first, from}, level: 'ok'};
}

/**
 * The new run's first save against the saves from before it: resumed from the newest earlier step below the first
 * new one (ok when that is the newest from before, warn when an older one: the newer saves' work was lost), or
 * started over (critical: nothing from before lies below it). Without steps, only the first save is named.
 */
function resumedEvent(name: string, job: SchedulerJob, first: Checkpoint, before: readonly Checkpoint[], time: number) {
	const {facts, level} = resumeOf(first, before);
	const text = resumedText({head: {scheduler: name, jobId: job.id, restarts: job.restarts}, ...facts});
	const named = facts.how === 'older' || facts.how === 'newest' ? facts.from?.name : first.name;
	return event(job, 'resumed', level, text, time, named);
}

export class RequeueWatch {
	#jobId: string | null = null;
	#restarts: number | null = null;
	#pending: Pending | null = null;

	/** This tick's requeue events: none unless the scheduler's answer or the index says something new. */
	update(state: SchedulerState | null, index: CheckpointIndex | null, time: number): JobEvent[] {
		if (state?.status !== 'ok' || state.job === null) return [];
		const {job, name} = state;
		const events: JobEvent[] = [];
		// Only an increase seen while watching is a requeue: a job first seen at restart 2 was requeued before.
		if (job.id === this.#jobId && this.#restarts !== null && job.restarts > this.#restarts) {
			events.push(requeuedEvent(name, job, index, time));
			this.#pending = {jobId: job.id, restarts: job.restarts};
		}
		this.#jobId = job.id;
		this.#restarts = job.restarts;
		const resumed = this.#resumed(name, job, index, time);
		if (resumed !== null) events.push(resumed);
		return events;
	}

	/** The new run's first save, once it runs and one is complete: its time is at or after the run's start. */
	#resumed(name: string, job: SchedulerJob, index: CheckpointIndex | null, time: number): JobEvent | null {
		const pending = this.#pending;
		if (pending === null || index === null || job.startTime === null) return null;
		if (job.id !== pending.jobId || job.restarts !== pending.restarts || job.phase !== 'running') return null;
		const start = job.startTime;
		const complete = index.checkpoints.filter(c => c.status === 'complete');
		const since = complete.filter(c => c.time >= start && c.kind !== 'last' && c.kind !== 'best');
		if (since.length === 0) return null;
		const first = since.reduce((a, b) => (b.time < a.time ? b : a));
		this.#pending = null;
		return resumedEvent(
			name,
			job,
			first,
			complete.filter(c => c.time < start),
			time,
		);
	}
}
