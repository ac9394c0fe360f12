import type {SaveExpectation} from '../checkpoints/save-attribution.js';
import type {RankProcess} from '../core/types.js';
import type {SendResult} from '../ranks/send.js';
import type {SignalName} from '../ranks/signals.js';
import type {Fleet} from './fleet.js';

// One signal to one job's ranks on several nodes, each node's share sent through its own agent, in parallel: the
// agent applies every guard of ranks/send.ts on its node and never forces. `traintop signal` through the agents and
// the many-node screen's s/e both send this way.

/** One node's share of a send: the job as that node's agent names it, and the ranks there to signal. */
export interface NodeSend {
	readonly node: string;
	readonly job: string;
	readonly ranks: readonly RankProcess[];
}

/** A rank's outcome, with the node it runs on. */
export interface NodeSendResult extends SendResult {
	readonly node: string;
}

/** The ranks a send names, grouped by their node (`host`), nodes in the order first met. */
export function ranksByNode(ranks: readonly RankProcess[]): Map<string, RankProcess[]> {
	const groups = new Map<string, RankProcess[]>();
	for (const rank of ranks) groups.set(rank.host, [...(groups.get(rank.host) ?? []), rank]);
	return groups;
}

/**
 * Sends `signal` to every node's share at once and waits for every reply: a rank's outcome as its agent says, or,
 * for a node whose agent could not be asked (`denied`) or refused the whole command (`refused`), the same words
 * for each of its ranks.
 */
export async function sendAcrossNodes(
	fleet: Pick<Fleet, 'send'>,
	signal: SignalName,
	sends: readonly NodeSend[],
	expect: SaveExpectation | null = null,
): Promise<NodeSendResult[]> {
	// What the save asks for goes with it: each node's watcher takes the next save for that kind.
	const asked = expect === null ? {} : {expect};
	const replies = await Promise.all(
		sends.map(async ({node, job, ranks}): Promise<NodeSendResult[]> => {
			const identities = ranks.map(rank => ({pid: rank.pid, start_time: rank.startTime}));
			const outcome = await fleet.send(node, {kind: 'signal', job, signal, ranks: identities, ...asked});
			const all = (result: NodeSendResult['outcome'], reason: string | null) =>
				ranks.map(rank => ({node, rank: rank.rank, pid: rank.pid, outcome: result, reason}));
			if (outcome.kind === 'unreachable') return all('denied', outcome.why);
			if (outcome.reply.refused !== null) return all('refused', outcome.reply.refused);
			return outcome.reply.results.map(result => ({...result, node}));
		}),
	);
	return replies.flat();
}
