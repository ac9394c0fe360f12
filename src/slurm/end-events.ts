import {slurmEndText, slurmStepEndText} from './views/job-lines.js';
import {isEndedState} from './slurm-values.js';
import {exitLevel} from '../format/events.js';
import type {SlurmJob, SlurmView} from './types.js';
import type {JobEvent, Level, RankSet} from '../core/types.js';

// How a SLURM job ended, from the controller. The ranks of a SLURM step are slurmstepd's children, reaped the moment
// they exit, so /proc seldom shows how they ended and the step's "job-ended" event would say "exit status unknown"
// while scontrol knows it (ExitCode=99:0, JobState=TIMEOUT). So while the job is watched (--slurm-job J, or inside
// its allocation), such an event is held until the controller's next answer: the job ended → the event carries
// SLURM's state and exit; the job still runs after the step ended (its batch script goes on) → it goes out as it
// was; no answer within HOLD_MS → as it was. A job that ends with no step event to carry it gets an event of its own.

/** Longest an event waits for the controller: the reader asks every 15 s, and is asked for a read at once. */
const HOLD_MS = 30_000;

/** The states that end a job with nothing of the user's to blame: a cancel, a preemption. */
const WARN_STATES = new Set(['CANCELLED', 'PREEMPTED']);

/** FAILED with any exit but 99 (the requeue convention) and the ends SLURM forced (TIMEOUT, NODE_FAIL…) are critical. */
function endLevel(job: SlurmJob): Level {
	if (WARN_STATES.has(job.state)) return 'warn';
	if (job.state === 'COMPLETED') return exitLevel(job.exit);
	if (job.state === 'FAILED') return exitLevel(job.exit) === 'ok' ? 'critical' : exitLevel(job.exit);
	return 'critical';
}

const endKey = (job: SlurmJob): string => `${job.jobId}:${job.restarts}`;

/** A step of the watched job (`slurm:42.0`) that ended without its exit being read. */
function unknownStepEnd(event: JobEvent, jobId: string): boolean {
	return event.kind === 'job-ended' && !event.exit && event.job?.startsWith(`slurm:${jobId}.`) === true;
}

export class SlurmEndWatch {
	readonly #reported = new Set<string>();
	#held: JobEvent[] = [];
	/** When the controller first said the job ended while its steps' ranks were still seen here. */
	#endSeenAt: number | null = null;

	/**
	 * This tick's events with a watched step's unknown end held or completed, and the job's own end added once.
	 * `readNow`: an event is held, so the controller should be asked at once rather than at its next turn.
	 */
	update(
		events: readonly JobEvent[],
		view: SlurmView | null,
		time: number,
		ranks: RankSet | null = null,
	): {events: JobEvent[]; readNow: boolean} {
		const jobId = view?.status === 'ok' ? view.job.jobId : view?.status === 'unavailable' ? view.last?.jobId : null;
		const out: JobEvent[] = [];
		let readNow = false;
		for (const event of events) {
			if (jobId !== null && jobId !== undefined && unknownStepEnd(event, jobId)) {
				this.#held.push(event);
				readNow = true;
			} else out.push(event);
		}
		const job = view?.status === 'ok' ? view.job : null;
		const ended = job !== null && isEndedState(job.state);
		if (ended) {
			const level = endLevel(job);
			// The held steps' ends carry the job's; else the job's end is an event of its own, once.
			for (const held of this.#held)
				out.push({...held, level, text: slurmStepEndText(held.job ?? '', job), exit: job.exit});
			// SLURM says TIMEOUT before the step's ranks are gone (it signals them, then waits KillWait): their end,
			// a moment later, carries it, unless they outlive HOLD_MS.
			const stepsLive = ranks?.jobs.some(one => one.id.startsWith(`slurm:${job.jobId}.`)) === true;
			this.#endSeenAt ??= time;
			const waitForSteps = stepsLive && time - this.#endSeenAt <= HOLD_MS;
			if (this.#held.length === 0 && !this.#reported.has(endKey(job)) && !waitForSteps) {
				const text = slurmEndText(job);
				const own = `slurm:${job.jobId}`;
				out.push({time, kind: 'job-ended', job: own, rank: null, pid: null, level, text, exit: job.exit});
				this.#reported.add(endKey(job));
			}
			if (this.#held.length > 0) this.#reported.add(endKey(job));
			this.#held = [];
		} else this.#endSeenAt = null;
		// Still running by an answer read after the step ended, or no answer in time: the events as they were.
		const stale = (held: JobEvent): boolean =>
			time - held.time > HOLD_MS || (job !== null && !ended && view !== null && view.readAt > held.time);
		out.push(...this.#held.filter(stale));
		this.#held = this.#held.filter(held => !stale(held));
		return {events: out, readNow};
	}
}
