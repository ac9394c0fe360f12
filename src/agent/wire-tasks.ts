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

/** The schedulers' list the keys were built from, and the keys. */
let keysOf: {readonly list: readonly unknown[]; readonly keys: ReadonlySet<string>} | null = null;

/** The keys a received rank or job carries its task under: `task` and the schedulers' own. */
export function taskWireKeys(): ReadonlySet<string> {
	// Asked for every rank set received; the list of schedulers is a new array only when one is added.
	const list = taskSchedulers();
	if (keysOf?.list !== list)
		keysOf = {list, keys: new Set(['task', ...list.flatMap(one => (one.wire ? [one.wire.key] : []))])};
	return keysOf.keys;
}
/**
 * A received rank or job without `task` and the schedulers' own keys: one copy, key by key in the order sent (every
 * rank gets the same shape; a spread then `delete` copied each rank twice and left it a slow dictionary object, for
 * 512 ranks every scan of 64 nodes).
 */
function withoutKeys<T extends Wire>(wire: T, keys: ReadonlySet<string>): T {
	const out: Record<string, unknown> = {};
	for (const name in wire) if (!keys.has(name)) out[name] = wire[name];
	return out as T;
}

export function rankToWire(rank: RankProcess): WireRank {
	const {task, ...rest} = rank;
	return {...rest, ...taskKeys(task)};
}

export function rankFromWire(wire: WireRank): RankProcess {
	return rankWithout(wire, taskWireKeys());
}

/** rankFromWire with the keys to leave out given (a whole rank set's ranks share them). */
export function rankWithout(wire: WireRank, keys: ReadonlySet<string>): RankProcess {
	const rank = withoutKeys(wire, keys) as Record<string, unknown>;
	rank.task = taskOf(wire);
	return rank as unknown as RankProcess;
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
	return jobWithout(wire, taskWireKeys());
}

/** jobFromWire with the keys to leave out given. */
export function jobWithout(wire: WireJob, keys: ReadonlySet<string>): Job {
	const ranks = wire.ranks.map(rank => rankWithout(rank, keys));
	return {...withoutKeys(wire, keys), ...codes(wire), ranks, task: taskOf(wire)} as unknown as Job;
}
