import type {JobEvent, Snapshot} from '../core/types.js';
import {schedulers} from '../scheduler/registry.js';
import type {SchedulerState} from '../scheduler/types.js';

// Facts about the whole job, not about one node: the scheduler's view of the job (time left, state, requeues) and
// the events made of it. Each node's agent reads the scheduler on its own (agents started on a scheduler's job), so
// with many nodes the same job arrives once per node, each read at its own moment; the views say it once, at the
// top, from the freshest reading. With one node this is that node's own.

/** A reader's placeholder before its first answer: stamped when made, so not news. */
const NOT_READ_YET = 'not read yet';

function isRead(view: SchedulerState): boolean {
	return !(view.status === 'unavailable' && view.reason === NOT_READ_YET);
}

/** Whether `a` is a better reading of the job than `b`: a real answer over none yet, then the newer, then 'ok'. */
function fresher(a: SchedulerState, b: SchedulerState): boolean {
	if (isRead(a) !== isRead(b)) return isRead(a);
	if (a.readAt !== b.readAt) return a.readAt > b.readAt;
	return a.status === 'ok' && b.status !== 'ok';
}

/**
 * The snapshot whose job view is the freshest among these (one per node, the latest each): its `scheduler` is the
 * job-level view, its time and checkpoints what that view is judged with. null when no node sees a job.
 */
export function freshestJobView(snapshots: Iterable<Snapshot>): Snapshot | null {
	let best: Snapshot | null = null;
	for (const snapshot of snapshots) {
		const view = snapshot.scheduler ?? null;
		if (view === null) continue;
		if (best === null || fresher(view, best.scheduler!)) best = snapshot;
	}
	return best;
}

/**
 * An event about the job as a whole (`<scheduler>:42`: requeued, resumed, ended), not about a step's rank on a node
 * (`<scheduler>:42.0`) nor a job without a scheduler.
 */
export function isJobLevelEvent(event: JobEvent): boolean {
	const job = event.job;
	if (job === null) return false;
	const colon = job.indexOf(':');
	// A launcher's job (`torchrun:4242`, `pid:501`) is a node's own; only a registered scheduler's names the whole job.
	return colon > 0 && !job.includes('.', colon) && schedulers().some(entry => entry.kind === job.slice(0, colon));
}

/** How many job-level events are remembered to say each once (a job is requeued a handful of times, not hundreds). */
const REMEMBERED = 64;

/**
 * Passes each job-level event once however many nodes report it: every node's agent makes the same `requeued` from
 * the same controller answer. Bounded: the oldest remembered are forgotten first.
 */
export class JobLevelEvents {
	readonly #seen = new Set<string>();

	/** True the first time this event is seen from any node. */
	first(event: JobEvent): boolean {
		const key = `${event.kind}|${event.job}|${event.text}`;
		if (this.#seen.has(key)) return false;
		this.#seen.add(key);
		if (this.#seen.size > REMEMBERED) this.#seen.delete(this.#seen.values().next().value!);
		return true;
	}
}
