import type {RankProcess} from '../core/types.js';
import {detailFromScan, type RankDetail} from '../ranks/detail.js';
import type {Fleet} from './fleet.js';

// A rank's detail on another node: that node's /proc is read by its agent (agent/detail-command.ts), the same
// rankDetail as the one-node screen, so the detail is as full as a local one: the exact argv, the cwd, the launch
// variables, each worker's RSS. An agent that cannot be asked or does not answer in time leaves the last scan's
// detail, marked as such; an agent that says the rank is gone is believed (the local detail does the same).

/** How long the detail box waits for the agent before it shows the last scan instead. */
const DETAIL_TIMEOUT_MS = 5000;

/**
 * The detail of `rank` on `node`, read there; the last scan's, with a note that says why, when the agent could not
 * answer. Rejects with the agent's words when it says there is no such rank to read (exited, its pid reused).
 */
export async function askRankDetail(
	fleet: Pick<Fleet, 'ask'>,
	node: string,
	rank: RankProcess,
	timeoutMs = DETAIL_TIMEOUT_MS,
): Promise<RankDetail> {
	const command = {kind: 'detail', pid: rank.pid, start_time: rank.startTime} as const;
	const asked = await fleet.ask(node, command, timeoutMs);
	if (asked.kind === 'unreachable')
		return detailFromScan(rank, Date.now(), `pid ${rank.pid} on ${node}: ${asked.why}; showing its last scan`);
	const {detail, refused} = asked.answer;
	if (detail) return detail;
	throw new Error(refused ?? `the agent on ${node} has no detail of pid ${rank.pid}`);
}
