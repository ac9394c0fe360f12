import {type ExitStatus, processIdentity, type Snapshot} from '../core/types.js';
import type {NodeView} from './node-state.js';
import {linkWords} from './node-words.js';
import type {NodeSend} from './send-across.js';

// What became of one job's ranks on each of its nodes after an emergency signal (they save and exit, 99 for a
// requeue), told by each node's own snapshots: a rank is gone when its agent's scan no longer lists it, and how it
// ended when an exit event says (its agent read the zombie's status); the job's end on the node (its launcher's
// exit) when the node's events say it ended. A node lost while some of its ranks were still there is lost, never
// "exited": its ranks may have died with it. Pure: fed snapshots and link views (node-exit-watch.ts does that).

/** Rank scans after the one that showed every target gone, waited for the job's own end (its launcher's exit). */
export const JOB_END_SCANS = 2;

/** One target rank on its node: its identity and, once gone, how it ended (null: its agent could not read it). */
export interface RankFate {
	readonly rank: number | null;
	readonly pid: number;
	readonly startTime: number;
	readonly gone: boolean;
	readonly exit: ExitStatus | null;
}

/** One node's share of the job since the signal. */
export interface NodeExit {
	readonly node: string;
	/** The job as the node's agent names it. */
	readonly job: string;
	readonly ranks: readonly RankFate[];
	/** The job's end on this node, as its agent saw it (its launcher's exit, else its lowest rank's); null until then. */
	readonly jobEnded: {readonly exit: ExitStatus | null} | null;
	/** Why the node was lost while some of its ranks were still listed: those are not counted as exited. */
	readonly lost: string | null;
	/** The node's rank scans since every target was seen gone (-1 while some are not). */
	readonly afterGone: number;
	/** When the node's last rank scan was made (its sampledAt): a snapshot that carries the same scan is not a new one. */
	readonly scanAt: number | null;
}

/** `running` (some ranks still listed), `exited` (every one seen gone by its agent), `lost` (see NodeExit.lost). */
export type NodeExitState = 'running' | 'exited' | 'lost';

export function exitState(node: NodeExit): NodeExitState {
	if (node.lost !== null) return 'lost';
	return node.ranks.every(rank => rank.gone) ? 'exited' : 'running';
}

/**
 * Nothing more to wait for on this node: lost, or its ranks gone and the job's end seen (or not come within
 * JOB_END_SCANS: a launcher that lives on, restarting its workers, or other ranks of the job still there).
 */
export function nodeSettled(node: NodeExit): boolean {
	const state = exitState(node);
	return state === 'lost' || (state === 'exited' && (node.jobEnded !== null || node.afterGone >= JOB_END_SCANS));
}

/** Every node's share of the send, before any snapshot: every rank running. */
export function startExits(sends: readonly NodeSend[]): NodeExit[] {
	return sends.map(({node, job, ranks}) => ({
		node,
		job,
		ranks: ranks.map(rank => ({rank: rank.rank, pid: rank.pid, startTime: rank.startTime, gone: false, exit: null})),
		jobEnded: null,
		lost: null,
		afterGone: -1,
		scanAt: null,
	}));
}

/** Only the ranks the signal reached (`reached`: node and pid): the others were never asked to exit. */
export function narrowExits(
	exits: readonly NodeExit[],
	reached: readonly {readonly node: string; readonly pid: number}[],
): NodeExit[] {
	return exits.flatMap(one => {
		const ranks = one.ranks.filter(rank => reached.some(r => r.node === one.node && r.pid === rank.pid));
		return ranks.length === 0
			? []
			: [{...one, ranks, afterGone: ranks.every(rank => rank.gone) ? Math.max(0, one.afterGone) : -1}];
	});
}

/** One node's snapshot: its exit events, the job's end, and which targets its rank scan no longer lists. */
function onSnapshot(one: NodeExit, snapshot: Snapshot): NodeExit {
	const events = snapshot.events.filter(event => event.job === one.job);
	const ended = events.find(event => event.kind === 'job-ended');
	const listed = snapshot.ranks ? new Set(snapshot.ranks.ranks.map(processIdentity)) : null;
	const wasGone = one.ranks.every(rank => rank.gone);
	const ranks = one.ranks.map(rank => {
		const exited = events.find(event => event.kind === 'rank-exited' && event.pid === rank.pid);
		const unlisted = listed !== null && !listed.has(processIdentity(rank));
		if (!exited && !unlisted) return rank;
		return {...rank, gone: true, exit: exited?.exit ?? rank.exit};
	});
	// Its agent lists a target again (it came back after a loss): their exit will be seen by that agent.
	const seen = listed !== null && one.ranks.some(rank => listed.has(processIdentity(rank)));
	const allGone = ranks.every(rank => rank.gone);
	// Ranks are scanned less often than snapshots are sent: only a new scan could have seen the job end.
	const scanAt = snapshot.ranks?.sampledAt ?? one.scanAt;
	const newScan = scanAt !== one.scanAt;
	return {
		...one,
		ranks,
		jobEnded: ended ? {exit: ended.exit ?? null} : one.jobEnded,
		lost: seen ? null : one.lost,
		afterGone: !allGone ? -1 : !wasGone ? 0 : one.afterGone + (newScan ? 1 : 0),
		scanAt,
	};
}

/** `node`'s snapshot, applied to its share (the other nodes' are unchanged). */
export function exitsOnSnapshot(exits: readonly NodeExit[], node: string, snapshot: Snapshot): NodeExit[] {
	return exits.map(one => (one.node === node ? onSnapshot(one, snapshot) : one));
}

/** The nodes' links now: one lost while some of its targets are still listed is lost (the first why is kept). */
export function exitsOnLinks(exits: readonly NodeExit[], nodes: readonly NodeView[], now: number): NodeExit[] {
	return exits.map(one => {
		if (one.lost !== null || one.ranks.every(rank => rank.gone)) return one;
		const view = nodes.find(node => node.name === one.node);
		return view?.state === 'lost' ? {...one, lost: linkWords(view, now)} : one;
	});
}
