import type {RankProcess, Snapshot} from '../core/types.js';
import type {RankDetail} from '../ranks/detail.js';
import type {DetailCommand, DetailMessage} from './protocol.js';

// What an agent does with a detail command: the viewer's rank detail for a rank on this node, read from this
// node's /proc by the same rankDetail the one-node screen uses. Only a rank of the agent's latest scan, named by its
// whole identity (pid and start time), is read: a viewer never gets an arbitrary pid's command line or environment
// (and of a rank's environment only the rankVariables(), as ranks/detail.ts keeps). It only reads: --readonly does
// not refuse it.

export interface DetailContext {
	/** This agent's host: a command for another is not ours. */
	readonly host: string;
	/** The latest snapshot: its rank scan says which processes are ranks. */
	readonly latest: () => Pick<Snapshot, 'ranks'> | null;
	/** The session's reader (actions.rankDetail): null when the rank has exited or its pid is another's now. */
	readonly detail: (rank: RankProcess) => RankDetail | null | Promise<RankDetail | null>;
}

/** Why `pid` named with `startTime` is not a rank to read, in words that name the pid and the node. */
function notARank(pid: number, startTime: number, ranks: readonly RankProcess[], host: string): string {
	const samePid = ranks.find(rank => rank.pid === pid);
	return samePid
		? `pid ${pid} on ${host} is no longer the rank named (start time ${startTime}, now ${samePid.startTime}): that process exited and the pid was reused`
		: `pid ${pid} is not a rank on ${host} at its last rank scan: an agent reads /proc for its ranks only`;
}

/** The answer to a detail command, or null when it is for another host (ignored without a word). */
export async function answerDetail(command: DetailCommand, context: DetailContext): Promise<DetailMessage | null> {
	const {host} = context;
	if (command.host !== host) return null;
	const answer = (detail: RankDetail | null, refused: string | null): DetailMessage => ({
		kind: 'detail',
		host,
		id: command.id,
		detail,
		refused,
	});
	const ranks = context.latest()?.ranks?.ranks;
	if (!ranks) return answer(null, `no rank scan yet on ${host}: nothing is known to show`);
	const rank = ranks.find(r => r.pid === command.pid && r.startTime === command.start_time);
	if (!rank) return answer(null, notARank(command.pid, command.start_time, ranks, host));
	const detail = await context.detail(rank);
	return detail
		? answer(detail, null)
		: answer(null, `pid ${command.pid} on ${host} has exited since the last rank scan`);
}
