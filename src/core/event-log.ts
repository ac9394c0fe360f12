import {keepRecent} from './event-places.js';
import {checkpointEvents, rankEvents} from './job-events.js';
import {runDirJob, withOverdueJudged} from './run-dir-job.js';
import {RequeueWatch} from './requeue-events.js';
import type {JobEndWatch, SchedulerState} from '../scheduler/types.js';
import type {CheckpointIndex, JobEvent, RankSet} from './types.js';

// The Monitor's memory of the job's life: the last rank sample and checkpoint index it turned into events, the
// scheduler job's restarts (requeue-events.ts), and the most recent events. Events are made only when a source gave a new object (a new rank sample, a
// changed index), so a tick that read nothing new says nothing, and a failed scan (the last ranks kept) too.

export interface JobEventsOfTick {
	/** The index the snapshot carries: OVERDUE cleared when no job runs for the run dir. */
	readonly checkpoints: CheckpointIndex | null;
	/** This tick's events. */
	readonly events: readonly JobEvent[];
	/**
	 * Newest last, the newest `limit` of each place (event-places.ts: saves apart from problems); the same array while
	 * nothing happens (views memoise on it).
	 */
	readonly recentEvents: readonly JobEvent[];
	/** Saves seen (save-seen events) since the log started: the checkpoints pane counts them. */
	readonly savesSeen: number;
	/** An event waits for the scheduler's answer (its end watch: a step's exit it knows and /proc did not): ask it now. */
	readonly readSchedulerNow: boolean;
}

export class JobEventLog {
	readonly #limit: number;
	#ranks: RankSet | null = null;
	#rawIndex: CheckpointIndex | null = null;
	#index: CheckpointIndex | null = null;
	#recent: readonly JobEvent[] = [];
	#savesSeen = 0;
	readonly #requeues = new RequeueWatch();

	constructor(limit: number) {
		this.#limit = limit;
	}

	update(
		ranks: RankSet | null,
		rawIndex: CheckpointIndex | null,
		time: number,
		scheduler: {readonly state: SchedulerState | null; readonly endWatch: JobEndWatch | null} = {
			state: null,
			endWatch: null,
		},
		/** Events judged elsewhere this tick (a job's progress verdict: core/progress-events.ts). */
		more: readonly JobEvent[] = [],
	): JobEventsOfTick {
		const ranksEvents = ranks && ranks !== this.#ranks ? rankEvents(this.#ranks, ranks, time) : [];
		// The scheduler's own rules hold or add events (a step's end may wait for the exit its controller knows).
		const ends = scheduler.endWatch?.update(ranksEvents, scheduler.state, time, ranks) ?? {
			events: ranksEvents,
			readNow: false,
		};
		const events: JobEvent[] = [...ends.events];
		// Overdue depends on the ranks too (is the job still there?): judged again when either changed, and a new
		// object only when the index or the verdict did (views memoise on it).
		let index = this.#index;
		if (rawIndex !== this.#rawIndex || ranks !== this.#ranks) {
			const judged = withOverdueJudged(rawIndex, ranks);
			if (rawIndex !== this.#rawIndex || judged?.lastSave?.overdue !== index?.lastSave?.overdue) index = judged;
		}
		if (index !== this.#index) events.push(...checkpointEvents(this.#index, index, time, runDirJob(ranks)));
		events.push(...this.#requeues.update(scheduler.state, index, time), ...more);
		this.#ranks = ranks;
		this.#rawIndex = rawIndex;
		this.#index = index;
		if (events.length > 0) this.#recent = keepRecent([...this.#recent, ...events], this.#limit);
		this.#savesSeen += events.filter(event => event.kind === 'save-seen').length;
		return {
			checkpoints: index,
			events,
			recentEvents: this.#recent,
			savesSeen: this.#savesSeen,
			readSchedulerNow: ends.readNow,
		};
	}
}
