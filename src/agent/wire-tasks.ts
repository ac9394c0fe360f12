import type {Job, JobIdentityKind, MembershipProof, RankProcess} from '../core/types.js';
import {taskSchedulers} from '../scheduler/kinds.js';
import type {SchedulerTask} from '../scheduler/task.js';

// A rank's and a job's scheduler task on the agent protocol, as it was before the scheduler seam: under the
// scheduler's own key from before the seam (null on every rank without one, as an older reader expects), and a job's
// identity and proof under the scheduler's codes (its kind, `KIND-step`). A reader of any version reads either;
// a scheduler added since has no key of its own: its task goes as it is, under `task`.

type Wire = Readonly<Record<string, unknown>>;

/** A rank as sent: its task under its scheduler's key (or `task`). */
export type WireRank = Omit<RankProcess, 'task'> & Wire;

/** A job as sent: its ranks as sent, its identity and proof as its scheduler's codes, its task under its key. */
export type WireJob = Omit<Job, 'task' | 'ranks' | 'identity' | 'provenBy'> & {
	readonly ranks: readonly WireRank[];
	readonly identity: string;
	readonly provenBy?: string;
} & Wire;

function taskKeys(task: SchedulerTask | null): Wire {
	const out: Record<string, unknown> = {};
	let sent = false;
	for (const one of taskSchedulers()) {
		if (one.wire === undefined) continue;
		const own = task?.scheduler === one.kind;
		out[one.wire.key] = own ? one.wire.to(task) : null;
		sent ||= own;
	}
	if (!sent && task !== null) out.task = task;
	return out;
}

function taskOf(wire: Wire): SchedulerTask | null {
	for (const one of taskSchedulers()) {
		const value = one.wire === undefined ? null : wire[one.wire.key];
		if (value !== null && value !== undefined) return one.wire!.from(value);
	}
	return (wire.task as SchedulerTask | undefined) ?? null;
}

/** Strips `task` and the schedulers' own keys from a received rank or job. */
function withoutKeys<T extends Wire>(wire: T): T {
	const out: Record<string, unknown> = {...wire};
	delete out.task;
	for (const one of taskSchedulers()) if (one.wire) delete out[one.wire.key];
	return out as T;
}

export function rankToWire(rank: RankProcess): WireRank {
	const {task, ...rest} = rank;
	return {...rest, ...taskKeys(task)};
}

export function rankFromWire(wire: WireRank): RankProcess {
	return {...withoutKeys(wire), task: taskOf(wire)} as unknown as RankProcess;
}

export function jobToWire(job: Job): WireJob {
	const {task, ...rest} = job;
	const kind = task?.scheduler;
	return {
		...rest,
		identity: job.identity === 'scheduler' && kind ? kind : job.identity,
		...(job.provenBy === 'scheduler-step' && kind ? {provenBy: `${kind}-step`} : {}),
		ranks: job.ranks.map(rankToWire),
		...taskKeys(task),
	};
}

/** A job's identity and proof codes as sent (a scheduler's kind, `KIND-step`) back to the generic ones. */
function codes(wire: Wire): {identity: JobIdentityKind; provenBy?: MembershipProof} {
	const kinds = new Set(taskSchedulers().map(one => one.kind));
	const identity = kinds.has(String(wire.identity)) ? 'scheduler' : (wire.identity as JobIdentityKind);
	const proof = typeof wire.provenBy === 'string' ? wire.provenBy : undefined;
	const stepOf = proof?.endsWith('-step') ? proof.slice(0, -'-step'.length) : null;
	const provenBy = stepOf !== null && kinds.has(stepOf) ? 'scheduler-step' : (proof as MembershipProof | undefined);
	return provenBy === undefined ? {identity} : {identity, provenBy};
}

export function jobFromWire(wire: WireJob): Job {
	const ranks = wire.ranks.map(rankFromWire);
	return {...withoutKeys(wire), ...codes(wire), ranks, task: taskOf(wire)} as unknown as Job;
}
