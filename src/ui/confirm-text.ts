import type {Job, RankProcess} from '../core/types.js';
import type {NodeView} from '../fleet/node-state.js';
import {linkWords} from '../fleet/node-words.js';
import {printable} from '../format/printable.js';
import {schedulerOf} from '../scheduler/kinds.js';
import {wholeJobWarning} from '../format/whole-job.js';
import {rankPreview} from '../ranks/preview.js';
import type {SignalName} from '../ranks/signals.js';
import {endsWholeJob} from '../ranks/whole-job.js';
import type {SignalAction} from '../session/actions.js';
import {
	type FleetTarget,
	type JobPart,
	jobParts,
	notConnected,
	targetParts,
	WHOLE_JOB_WHY,
} from './fleet/fleet-job-target.js';
import {acrossNodes, type SendTarget} from './send-flow.js';
import {signalWord} from './send-status.js';
import type {Target} from './targets.js';

// The confirm box's words, for a job on N nodes: the title, why nothing would be sent (a node of the job not
// connected), which ranks and whether the save is watched, whether the send ends the whole job, the ranks that will be
// refused (counted, listed first), the route, then what each target does with the signal. The route is this node's
// kill(2) for one node's ranks (and what the job has elsewhere), each node's agent across nodes (the targets node by
// node). Pure.

export interface ConfirmText {
	readonly title: string;
	readonly lines: readonly string[];
}

/** One node's ranks: the target's job in the latest scan (null: gone), and the session's RUN_DIR. */
export interface LocalScope {
	readonly job: Job | null;
	readonly sessionRunDir: string | null;
}

/** A job across nodes: every node as the fleet sees it now. */
export interface NodesScope {
	readonly nodes: readonly NodeView[];
	readonly now: number;
}

/** The confirm box's lines, in the order shown; what differs between one node's ranks and a job across nodes. */
interface Parts {
	/** Before all: why nothing would be sent. */
	readonly first: readonly string[];
	/** Which ranks, and whether the save is watched. */
	readonly header: string;
	/** The job as every node shows it and its chosen ranks: does the send end every rank of it? */
	readonly whole: {readonly job: Job; readonly ranks: readonly RankProcess[]};
	readonly refused: readonly string[];
	readonly route: readonly string[];
	/** The targets, each as it takes the signal. */
	readonly body: readonly string[];
}

const AGENTS_ROUTE = "route: agents — each node's agent sends to its own ranks, every guard applied there";

/** Whether the save can be watched: only RUN_DIR's own job's is. */
function runDirWords(job: Job, sessionRunDir: string | null): string {
	if (job.runDir !== null) return `run dir ${job.runDir}`;
	return sessionRunDir !== null
		? "RUN_DIR is not this job's: the save will not be watched"
		: 'no RUN_DIR given: the save will not be watched';
}

/**
 * The local route, as `traintop signal` names it (`route: local`), and what it leaves out: ranks the job declares that
 * run elsewhere get nothing from a send here. For a scheduler's job the box says which command reaches every task.
 */
function localRoute(job: Job, action: SignalAction): string[] {
	const local = "route: local — from this node to each rank's pid, checked again just before sending";
	const elsewhere = job.worldSize === null ? 0 : job.worldSize - job.ranks.length;
	if (elsewhere <= 0) return [local];
	const ranks = `${elsewhere} of its ${job.worldSize} ranks run elsewhere and get nothing`;
	const words = job.task && schedulerOf(job.task)?.words;
	if (!job.task || !words) return [local, `${ranks}: signal them on their nodes`];
	return [local, `${ranks}: ${words.reachEveryTask(action, printable(job.task.jobId))}`];
}

/** The node whose snapshots show the save: the first of the job's nodes whose agent watches a run dir. */
export function saveNode(parts: readonly JobPart[]): JobPart | null {
	return parts.find(part => part.node.snapshot?.checkpoints) ?? null;
}

function watchWords(parts: readonly JobPart[]): string {
	const watched = saveNode(parts);
	const runDir = watched?.node.snapshot?.checkpoints?.runDir;
	return watched && runDir
		? `save watched in ${runDir} on ${watched.node.name}`
		: 'no agent of the job watches a RUN_DIR: the save will not be watched';
}

/** `node1: ranks 0, 1 (2 of 2 here)`, and the link when it is not connected. */
function nodeLine(part: JobPart, now: number): string {
	const {node, job} = part;
	const numbers = job.ranks.map(rank => rank.rank ?? '?').join(', ');
	const declared = node.snapshot?.ranks?.jobs.find(one => one.id === job.id)?.localWorldSize ?? job.ranks.length;
	const link = node.state === 'connected' ? '' : ` · ${linkWords(node, now)}`;
	return `${node.name}: rank${job.ranks.length === 1 ? '' : 's'} ${numbers} (${job.ranks.length} of ${declared} here)${link}`;
}

/** Each rank's preview, the refused ones first; and the line counting them, when any is. */
function previews(ranks: readonly RankProcess[], signal: SignalName, why: string, indent = '') {
	const all = ranks.map(r => rankPreview(r, signal, false, why));
	const refused = all.filter(p => p.refused);
	const plural = ranks.length === 1 ? '' : 's';
	return {
		count:
			refused.length === 0 ? [] : [`${refused.length} of ${ranks.length} rank${plural} will be refused (listed first)`],
		lines: [...refused, ...all.filter(p => !p.refused)].map(p => `${indent}${p.text}`),
	};
}

/** The words' parts for one node's ranks, sent from here. */
function localParts(action: SignalAction, signal: SignalName, target: Target, job: Job, runDir: string | null): Parts {
	const chosen = new Set(target.pids);
	const ranks = job.ranks.filter(r => chosen.has(r.pid));
	const plural = ranks.length === 1 ? '' : 's';
	const which = target.marked
		? `${ranks.length} marked rank${plural} of ${job.ranks.length}`
		: `all ${ranks.length} rank${plural}`;
	const shown = previews(ranks, signal, 'the TUI never forces; traintop signal --force does');
	return {
		first: [],
		header: `${which} · ${runDirWords(job, runDir)}`,
		whole: {job, ranks},
		refused: shown.count,
		route: localRoute(job, action),
		body: shown.lines,
	};
}

/** The words' parts for a job across its nodes, through their agents. */
function nodesParts(signal: SignalName, target: FleetTarget, parts: readonly JobPart[], scope: NodesScope): Parts {
	const off = notConnected(parts, scope.now);
	const ranks = parts.flatMap(part => part.job.ranks);
	const world = parts.find(part => part.job.worldSize !== null)?.job.worldSize ?? null;
	// Every rank of the job seen on a node, targets or not: what its declared world size is compared with.
	const all = jobParts(scope.nodes, target.job).flatMap(part => part.job.ranks);
	const missing =
		world !== null && world > all.length
			? [`${world - all.length} of its ${world} ranks are on no node listed here and get nothing`]
			: [];
	const count = `${ranks.length} rank${ranks.length === 1 ? '' : 's'} on ${parts.length} node${parts.length === 1 ? '' : 's'}`;
	const why = 'an agent never forces';
	const shown = previews(ranks, signal, why);
	return {
		first: off === null ? [] : [`nothing will be sent: ${off}`, ...WHOLE_JOB_WHY],
		header: `${count} · ${watchWords(parts)}`,
		// The job as all its nodes show it, and the chosen ranks of it: does the send end every rank of it?
		whole: {job: {...parts[0]!.job, ranks: all}, ranks},
		refused: shown.count,
		route: [AGENTS_ROUTE, ...missing],
		body: parts.flatMap(part => [nodeLine(part, scope.now), ...previews(part.job.ranks, signal, why, '  ').lines]),
	};
}

/**
 * `Send SIGUSR1 (save) to job torchrun:4242?`, then `all 4 ranks · run dir /runs/a` (one node's ranks) or
 * `4 ranks on 2 nodes · save watched in /runs/a on node1` (a job across nodes), and a line per target.
 */
export function confirmText(action: SignalAction, signal: SignalName, target: Target, scope: LocalScope): ConfirmText;
export function confirmText(
	action: SignalAction,
	signal: SignalName,
	target: FleetTarget,
	scope: NodesScope,
): ConfirmText;
export function confirmText(
	action: SignalAction,
	signal: SignalName,
	target: SendTarget,
	scope: LocalScope | NodesScope,
): ConfirmText {
	// A job's id is made of its ranks' environment (the scheduler's job id, MASTER_ADDR…): shown, never obeyed.
	const id = printable(target.job);
	const title = `Send ${signalWord(action, signal)} to job ${id}?`;
	const gone = {title, lines: [`job ${id} is no longer running: nothing will be sent`]};
	let parts: Parts;
	if (acrossNodes(target) && 'nodes' in scope) {
		const onNodes = targetParts(scope.nodes, target);
		if (onNodes.length === 0) return gone;
		parts = nodesParts(signal, target, onNodes, scope);
	} else if (!acrossNodes(target) && 'job' in scope && scope.job !== null) {
		parts = localParts(action, signal, target, scope.job, scope.sessionRunDir);
	} else return gone;
	// A marked rank of a torchrun job that exits takes every rank with it: said before the route and the targets.
	const wholeJob = endsWholeJob(parts.whole.job, parts.whole.ranks, signal, {
		emergency: action === 'emergency',
		force: false,
	});
	// Refused ranks counted above the route: in a box of 64 ranks that scrolls, the one that would die of the signal
	// is on the first screen, not row 60.
	return {
		title,
		lines: [
			...parts.first,
			parts.header,
			...(wholeJob ? [wholeJobWarning(wholeJob)] : []),
			...parts.refused,
			...parts.route,
			...parts.body,
		],
	};
}
