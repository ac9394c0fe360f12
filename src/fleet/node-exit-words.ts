import type {ExitStatus} from '../core/types.js';
import {jobExitWords} from '../format/events.js';
import type {SignalName} from '../ranks/signals.js';
import {exitState, type NodeExit, type RankFate} from './node-exits.js';

// A node's share of a job after an emergency signal, in the words a job's end has everywhere else (`exit 99 —
// saved for requeue`, `killed by SIGKILL`: format/events.ts), for the many-node screen and `traintop signal`.

/** `rank 0`, `ranks 0, 1`. */
function rankList(ranks: readonly RankFate[]): string {
	const numbers = ranks.map(rank => rank.rank ?? '?').join(', ');
	return `rank${ranks.length === 1 ? '' : 's'} ${numbers}`;
}

const sameExit = (a: ExitStatus | null, b: ExitStatus | null): boolean =>
	(a?.code ?? null) === (b?.code ?? null) && (a?.signal ?? null) === (b?.signal ?? null);

/** The node's share's end, as a job's end is told: its launcher's exit when read, else its lowest rank's. */
export function nodeExitStatus(node: NodeExit): ExitStatus | null {
	if (node.jobEnded?.exit) return node.jobEnded.exit;
	const gone = node.ranks.filter(rank => rank.gone).sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
	return gone[0]?.exit ?? null;
}

/** `exit 99 — saved for requeue`; each rank's own when its ranks ended differently and the job's end is not known. */
function exitWords(node: NodeExit): string {
	const gone = node.ranks.filter(rank => rank.gone);
	if (node.jobEnded?.exit || gone.every(rank => sameExit(rank.exit, gone[0]?.exit ?? null)))
		return jobExitWords(nodeExitStatus(node));
	return gone.map(rank => `rank ${rank.rank ?? '?'} ${jobExitWords(rank.exit)}`).join(', ');
}

/** The job's exit across its nodes: the exit of the node holding its lowest rank (rank 0's, as on one node). */
export function jobExitStatus(nodes: readonly NodeExit[]): ExitStatus | null {
	const lowest = (node: NodeExit) => Math.min(...node.ranks.map(rank => rank.rank ?? Infinity));
	const first = [...nodes].sort((a, b) => lowest(a) - lowest(b))[0];
	return first ? nodeExitStatus(first) : null;
}

/**
 * `node1: ranks 0, 1 exited after SIGTERM (exit 99 — saved for requeue)`, `node2: waiting for ranks 2, 3 to exit…`,
 * `node2: ranks 2, 3 still running 60 s after SIGTERM`, `node2 lost: …; reconnecting — ranks 2, 3 not seen to exit`.
 */
export function nodeExitLine(
	node: NodeExit,
	signal: SignalName,
	watch: {readonly timedOut: boolean; readonly timeoutS: number},
): string {
	const all = rankList(node.ranks);
	switch (exitState(node)) {
		case 'exited':
			return `${node.node}: ${all} exited after ${signal} (${exitWords(node)})`;
		case 'lost': {
			// Gone from the scan of an agent that came back: they may have died with the node, not exited.
			const back = node.ranks.every(rank => rank.gone) ? ' (gone when its agent came back: how is unknown)' : '';
			return `${node.node} ${node.lost} — ${all} not seen to exit${back}`;
		}
		case 'running': {
			const left = node.ranks.filter(rank => !rank.gone);
			const done = node.ranks.filter(rank => rank.gone);
			const exited = done.length === 0 ? '' : `; ${rankList(done)} exited (${exitWords(node)})`;
			return watch.timedOut
				? `${node.node}: ${rankList(left)} still running ${watch.timeoutS} s after ${signal}${exited}`
				: `${node.node}: waiting for ${rankList(left)} to exit${exited}…`;
		}
	}
}
