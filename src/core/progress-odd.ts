import {isCollectiveWait} from './progress-activity.js';
import type {OddProcess, ProcessActivity, WaitingRanks} from './progress-types.js';

// The odd rank out: in a synchronous job every rank meets every other at each collective, so when the job stops,
// most ranks wait in the same place and the one that does not is the one they wait for. A rank stopped, in D, a
// zombie or gone always stands out; otherwise the ranks that do not wait in a collective stand out from those that
// do. With nobody waiting in one, a strict majority doing the same thing marks the rest. A stuck DataLoader worker is
// named after its rank: the rank sleeps on the worker's queue, the worker elsewhere.

/** A rank (or worker) as the judge saw it at the scan. */
export interface Member extends OddProcess {
	readonly workers?: readonly OddProcess[];
}

/** Always odd while another rank is there: nothing a healthy rank does between steps looks like this. */
const DEFINITE: ReadonlySet<ProcessActivity> = new Set(['gone', 'stopped', 'zombie', 'disk']);

/** The order odd processes are told in: the likeliest cause first. */
const ORDER: readonly ProcessActivity[] = ['gone', 'stopped', 'zombie', 'disk', 'sleeping', 'computing', 'waiting'];

/** A worker's waits that mean "idle, waiting for its next index" (DataLoader's queue: a poll, a select, a futex). */
const IDLE_WORKER_WAIT = /poll|select|^futex|epoll/;

function withoutWorkers(member: Member): OddProcess {
	const {workers: _workers, ...process} = member;
	return process;
}

const keyOf = (m: OddProcess): string => `${m.activity} ${m.wchan ?? ''}`;

/** Of a rank's workers, the ones stuck: sleeping outside a queue wait, in D, stopped, a zombie, or computing alone. */
function stuckWorkers(rank: Member): OddProcess[] {
	return (rank.workers ?? []).filter(
		w => w.activity !== 'waiting' && !(w.activity === 'sleeping' && w.wchan !== null && IDLE_WORKER_WAIT.test(w.wchan)),
	);
}

function oddRanks(members: readonly Member[]): Member[] {
	if (members.length < 2) return [];
	const definite = members.filter(m => DEFINITE.has(m.activity));
	const waiting = members.filter(m => m.activity === 'waiting');
	if (waiting.length > 0) return members.filter(m => m.activity !== 'waiting');
	const rest = members.filter(m => !DEFINITE.has(m.activity));
	const counts = new Map<string, number>();
	for (const m of rest) counts.set(keyOf(m), (counts.get(keyOf(m)) ?? 0) + 1);
	const [top, count] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
	const minority = count * 2 > members.length ? rest.filter(m => keyOf(m) !== top) : [];
	return [...definite, ...minority];
}

/** The odd processes (ranks, each followed by its stuck workers) and the other ranks grouped by where they wait. */
export function oddAndWaiting(members: readonly Member[]): {odd: OddProcess[]; waiting: WaitingRanks[]} {
	const odd = oddRanks(members).sort((a, b) => ORDER.indexOf(a.activity) - ORDER.indexOf(b.activity));
	const oddPids = new Set(odd.map(m => m.pid));
	const groups = new Map<string, Member[]>();
	for (const m of members) {
		if (oddPids.has(m.pid)) continue;
		const group = groups.get(keyOf(m)) ?? [];
		group.push(m);
		groups.set(keyOf(m), group);
	}
	const waiting = [...groups.values()]
		.map(group => ({
			ranks: group.map(m => m.rank),
			pids: group.map(m => m.pid),
			activity: group[0]!.activity,
			wchan: group[0]!.wchan,
			since: Math.min(...group.map(m => m.since)),
		}))
		// Those in a collective wait first: "ranks 0, 2 waiting in futex_do_wait".
		.sort(
			(a, b) => Number(isCollectiveWait(b.wchan)) - Number(isCollectiveWait(a.wchan)) || b.pids.length - a.pids.length,
		);
	return {odd: odd.flatMap(m => [withoutWorkers(m), ...stuckWorkers(m)]), waiting};
}
