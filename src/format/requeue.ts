import type {Checkpoint} from '../core/types.js';

// A scheduler's requeue in words (core/requeue-events.ts carries the figures): "<scheduler> job 16 requeued (restart 1)",
// then where the new run picked up.

/** The scheduler's name (SchedulerState.name), the job's id there and its restart count. */
export interface RequeueHead {
	readonly scheduler: string;
	readonly jobId: string;
	readonly restarts: number;
}

/**
 * How the new run's first save stands against those from before: no steps to compare (first-only), nothing from
 * before below it (started-over), resumed from an older save than the newest (older), or from the newest (newest).
 */
export interface ResumeFacts {
	readonly head: RequeueHead;
	readonly how: 'first-only' | 'started-over' | 'older' | 'newest';
	readonly first: Checkpoint;
	readonly from?: Checkpoint;
	readonly newest?: Checkpoint;
}

/** `checkpoint_step_1200 (step 1200)`. */
function named(c: Checkpoint): string {
	return c.step === null ? c.name : `${c.name} (step ${c.step})`;
}

const headText = (head: RequeueHead): string =>
	`${head.scheduler} job ${head.jobId} requeued (restart ${head.restarts})`;

/** The requeue, with what lies on disk for the new run: `index` null: no run dir. */
export function requeuedText(
	head: RequeueHead,
	index: {readonly runDir: string; readonly newest: Checkpoint | null} | null,
): string {
	if (index === null) return headText(head);
	if (index.newest === null) return `${headText(head)}; no complete checkpoint in ${index.runDir}`;
	return `${headText(head)}; newest checkpoint on disk ${named(index.newest)}`;
}

export function resumedText(facts: ResumeFacts): string {
	const head = headText(facts.head);
	const since = `its first save since is ${named(facts.first)}`;
	switch (facts.how) {
		case 'first-only':
			return `${head}: ${since}`;
		case 'started-over':
			return `${head} started over: ${since}, though ${named(facts.newest!)} was on disk`;
		case 'older':
			return `${head}, resumed from ${named(facts.from!)}, not the newest ${named(facts.newest!)}: ${since}`;
		case 'newest':
			return `${head}, resumed from ${named(facts.from!)}: ${since}`;
	}
}
