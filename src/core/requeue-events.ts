import type {SlurmJob, SlurmView} from './slurm-types.js';
import type {Checkpoint, CheckpointIndex, JobEvent, Level} from './types.js';

// A SLURM requeue as the job's life sees it. `scontrol requeue`, a preemption or a node failure ends the run and
// queues the same job id again with Restarts + 1; the batch script then runs from its start (sbatch(1) --requeue).
// Two events: "requeued" when the controller's answer shows the new restart count, and "resumed" when the new run's
// first save appears. What a job loads on restart is its own choice, so "resumed from" is read from that first
// save's step against the steps on disk from before: the newest of them below it is where training picked up.

/** The run the watcher waits on: this job's restart `restarts`, started at `startTime` once it runs. */
interface Pending {
	readonly jobId: string;
	readonly restarts: number;
}

const slurmJobId = (job: SlurmJob): string => `slurm:${job.jobId}`;

function event(job: SlurmJob, kind: JobEvent['kind'], level: Level, text: string, time: number, name?: string) {
	const base: JobEvent = {time, kind, job: slurmJobId(job), rank: null, pid: null, level, text};
	return name === undefined ? base : {...base, checkpoint: name};
}

/** `checkpoint_step_1200 (step 1200)`. */
function named(c: Checkpoint): string {
	return c.step === null ? c.name : `${c.name} (step ${c.step})`;
}

function newestComplete(checkpoints: readonly Checkpoint[]): Checkpoint | null {
	let newest: Checkpoint | null = null;
	for (const c of checkpoints) if (c.status === 'complete' && (newest === null || c.time >= newest.time)) newest = c;
	return newest;
}

function requeuedEvent(job: SlurmJob, index: CheckpointIndex | null, time: number): JobEvent {
	const head = `SLURM job ${job.jobId} requeued (restart ${job.restarts})`;
	if (index === null) return event(job, 'requeued', 'warn', head, time);
	const newest = newestComplete(index.checkpoints);
	if (newest === null)
		return event(job, 'requeued', 'warn', `${head}; no complete checkpoint in ${index.runDir}`, time);
	return event(job, 'requeued', 'warn', `${head}; newest checkpoint on disk ${named(newest)}`, time, newest.name);
}

/**
 * The new run's first save against the saves from before it: resumed from the newest earlier step below the first
 * new one (ok when that is the newest from before, warn when an older one: the newer saves' work was lost), or
 * started over (critical: nothing from before lies below it). Without steps, only the first save is named.
 */
function resumedEvent(job: SlurmJob, first: Checkpoint, before: readonly Checkpoint[], time: number): JobEvent {
	const head = `SLURM job ${job.jobId} requeued (restart ${job.restarts})`;
	const since = `its first save since is ${named(first)}`;
	const stepped = before.filter(c => c.step !== null).sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
	if (first.step === null || stepped.length === 0)
		return event(job, 'resumed', 'ok', `${head}: ${since}`, time, first.name);
	const from = stepped.filter(c => (c.step ?? 0) < (first.step ?? 0)).at(-1);
	const newest = stepped.at(-1)!;
	if (from === undefined)
		return event(
			job,
			'resumed',
			'critical',
			`${head} started over: ${since}, though ${named(newest)} was on disk`,
			time,
		);
	if (from.step !== newest.step)
		return event(
			job,
			'resumed',
			'warn',
			`${head}, resumed from ${named(from)}, not the newest ${named(newest)}: ${since}`,
			time,
			from.name,
		);
	return event(job, 'resumed', 'ok', `${head}, resumed from ${named(from)}: ${since}`, time, from.name);
}

export class RequeueWatch {
	#jobId: string | null = null;
	#restarts: number | null = null;
	#pending: Pending | null = null;

	/** This tick's requeue events: none unless the controller's answer or the index says something new. */
	update(view: SlurmView | null, index: CheckpointIndex | null, time: number): JobEvent[] {
		if (view?.status !== 'ok') return [];
		const {job} = view;
		const events: JobEvent[] = [];
		// Only an increase seen while watching is a requeue: a job first seen at restart 2 was requeued before.
		if (job.jobId === this.#jobId && this.#restarts !== null && job.restarts > this.#restarts) {
			events.push(requeuedEvent(job, index, time));
			this.#pending = {jobId: job.jobId, restarts: job.restarts};
		}
		this.#jobId = job.jobId;
		this.#restarts = job.restarts;
		const resumed = this.#resumed(job, index, time);
		if (resumed !== null) events.push(resumed);
		return events;
	}

	/** The new run's first save, once it runs and one is complete: its time is at or after the run's start. */
	#resumed(job: SlurmJob, index: CheckpointIndex | null, time: number): JobEvent | null {
		const pending = this.#pending;
		if (pending === null || index === null || job.startTime === null) return null;
		if (job.jobId !== pending.jobId || job.restarts !== pending.restarts || job.state !== 'RUNNING') return null;
		const start = job.startTime;
		const complete = index.checkpoints.filter(c => c.status === 'complete');
		const since = complete.filter(c => c.time >= start && c.kind !== 'last' && c.kind !== 'best');
		if (since.length === 0) return null;
		const first = since.reduce((a, b) => (b.time < a.time ? b : a));
		this.#pending = null;
		return resumedEvent(
			job,
			first,
			complete.filter(c => c.time < start),
			time,
		);
	}
}
