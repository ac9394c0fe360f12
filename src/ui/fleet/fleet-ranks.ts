import type {EndedJob, Job, RankProcess, RankSet} from '../../core/types.js';
import type {NodeView} from '../../fleet/node-state.js';
import {rankVariablesText} from '../../format/jobs.js';
import {taskSchedulers} from '../../scheduler/kinds.js';

// Every node's ranks as one rank set for the ranks pane: a job that spans nodes is one job, each rank with the name
// of the node it runs on (the host column). A job's identity says whether it can span nodes: a scheduler's job and
// step, or a rendezvous address (MASTER_ADDR:PORT), name the same job wherever they are read; a launcher's pid or a lone
// process's is only unique on its own node, so such a job is qualified by it (`node1/torchrun:4242`).

/** The identities that name one job across nodes (ranks/jobs.ts: a scheduler's `KIND:J.S`, `rdzv:ADDR:PORT`). */
const SPANS_NODES: ReadonlySet<Job['identity']> = new Set(['scheduler', 'rendezvous']);

/** How many ended jobs the merged set keeps (the pane shows a few when no job runs). */
const ENDED_KEPT = 20;

/** The job's id across nodes: its own when it can span them, else qualified by its node. */
export function fleetJobId(node: string, job: Pick<Job, 'id' | 'identity'>): string {
	return SPANS_NODES.has(job.identity) ? job.id : `${node}/${job.id}`;
}

interface Part {
	readonly node: string;
	readonly job: Job;
	readonly ranks: readonly RankProcess[];
}

/** Ranks by rank number (unknown last), nodes in their listed order where numbers tie. */
function byRank(a: RankProcess, b: RankProcess): number {
	return (a.rank ?? Number.POSITIVE_INFINITY) - (b.rank ?? Number.POSITIVE_INFINITY);
}

function merged(id: string, parts: readonly Part[]): Job {
	const first = parts[0]!.job;
	const single = parts.length === 1;
	return {
		id,
		identity: first.identity,
		// Each node has its own launcher; one is the job's only when the job is on one node.
		launcher: single ? first.launcher : null,
		ranks: parts.flatMap(part => part.ranks).sort(byRank),
		worldSize: parts.find(part => part.job.worldSize !== null)?.job.worldSize ?? null,
		// Declared per node: the sum over its nodes when every one declares it.
		localWorldSize: parts.every(part => part.job.localWorldSize !== null)
			? parts.reduce((sum, part) => sum + part.job.localWorldSize!, 0)
			: null,
		allLocalRanksPresent: parts.every(part => part.job.allLocalRanksPresent),
		runDir: parts.find(part => part.job.runDir !== null)?.job.runDir ?? null,
		cwd: first.cwd,
		task: first.task,
	};
}

/**
 * A job's ranks with their node's name and the job's id across nodes: the same array while the node's job is the
 * same object (its agent sends a scan every few seconds; the list is drawn every second, 512 ranks at 64 nodes).
 */
const RELABELLED = new WeakMap<Job, {readonly node: string; readonly id: string; readonly ranks: RankProcess[]}>();

function relabelled(node: string, job: Job, id: string): readonly RankProcess[] {
	const known = RELABELLED.get(job);
	if (known && known.node === node && known.id === id) return known.ranks;
	const ranks = job.ranks.map(rank => ({...rank, host: node, job: id}));
	RELABELLED.set(job, {node, id, ranks});
	return ranks;
}

/** An ended job's id across nodes: its identity is not kept, but a cross-node id (a scheduler's, rdzv:) says what it is. */
function endedId(node: string, job: EndedJob): string {
	const spans = job.id.startsWith('rdzv:') || taskSchedulers().some(one => job.id.startsWith(`${one.kind}:`));
	return spans ? job.id : `${node}/${job.id}`;
}

/**
 * The ranks of every node that has sent a scan, job by job (jobs in the order first met, nodes in their order),
 * each rank's `host` its node's name and its `job` the merged job's id; null when no node has sent one yet.
 */
export function fleetRankSet(nodes: readonly NodeView[]): RankSet | null {
	const parts = new Map<string, Part[]>();
	// By id: a job that spanned nodes ended on each of them; the last of those ends it.
	const ended = new Map<string, EndedJob>();
	let sampledAt: number | null = null;
	for (const node of nodes) {
		const set = node.snapshot?.ranks;
		if (!set) continue;
		sampledAt = Math.max(sampledAt ?? set.sampledAt, set.sampledAt);
		for (const job of set.jobs) {
			const id = fleetJobId(node.name, job);
			const ranks = relabelled(node.name, job, id);
			parts.set(id, [...(parts.get(id) ?? []), {node: node.name, job, ranks}]);
		}
		for (const job of set.ended) {
			const id = endedId(node.name, job);
			const known = ended.get(id);
			if (!known || known.endedAt < job.endedAt) ended.set(id, {...job, id});
		}
	}
	if (sampledAt === null) return null;
	const jobs = [...parts].map(([id, of]) => merged(id, of));
	return {
		ranks: jobs.flatMap(job => job.ranks),
		jobs,
		launcher: jobs.length === 1 ? jobs[0]!.launcher : null,
		departed: [],
		ended: [...ended.values()].sort((a, b) => a.endedAt - b.endedAt).slice(-ENDED_KEPT),
		runDirMatch: null,
		search: `no ranks on any node: each agent looks for processes with ${rankVariablesText()} set`,
		sampledAt,
	};
}
