import type {NodeView} from '../../fleet/node-state.js';
import {linkWords} from '../../fleet/node-words.js';
import {wholeJobWarning} from '../../format/whole-job.js';
import {previewLine} from '../../ranks/preview.js';
import {endsWholeJob} from '../../ranks/whole-job.js';
import type {SignalName} from '../../ranks/signals.js';
import type {SignalAction} from '../../session/actions.js';
import type {ConfirmText} from '../confirm-text.js';
import {signalWord} from '../send-status.js';
import {
	type FleetTarget,
	type JobPart,
	jobParts,
	notConnected,
	targetParts,
	WHOLE_JOB_WHY,
} from './fleet-job-target.js';

// The many-node screen's confirm box: the one job, its targets node by node (each rank's preview, as the one-node
// box says it), where the save is watched, the route through the agents, and, before all, why nothing would be sent
// when a node of the job is not connected. Pure.

const ROUTE = "route: agents — each node's agent sends to its own ranks, every guard applied there";
const NEVER_FORCES = 'an agent never forces';

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

/** `Send SIGUSR1 (save) to job slurm:998.0?`, then why not (if so), the totals, the route, and node by node. */
export function fleetConfirmText(
	action: SignalAction,
	signal: SignalName,
	target: FleetTarget,
	nodes: readonly NodeView[],
	now: number,
): ConfirmText {
	const title = `Send ${signalWord(action, signal)} to job ${target.job}?`;
	const parts = targetParts(nodes, target);
	if (parts.length === 0) return {title, lines: [`job ${target.job} is no longer running: nothing will be sent`]};
	const off = notConnected(parts, now);
	const count = parts.reduce((sum, part) => sum + part.job.ranks.length, 0);
	const world = parts.find(part => part.job.worldSize !== null)?.job.worldSize ?? null;
	// Every rank of the job seen on a node, targets or not: what its declared world size is compared with.
	const seen = jobParts(nodes, target.job).reduce((sum, part) => sum + part.job.ranks.length, 0);
	const missing =
		world !== null && world > seen
			? [`${world - seen} of its ${world} ranks are on no node listed here and get nothing`]
			: [];
	// The job as all its nodes show it, and the chosen ranks of it: does the send end every rank of it?
	const allRanks = jobParts(nodes, target.job).flatMap(part => part.job.ranks);
	const wholeJob = endsWholeJob(
		{...parts[0]!.job, ranks: allRanks},
		parts.flatMap(part => part.job.ranks),
		signal,
		{emergency: action === 'emergency', force: false},
	);
	return {
		title,
		lines: [
			...(off === null ? [] : [`nothing will be sent: ${off}`, ...WHOLE_JOB_WHY]),
			`${count} rank${count === 1 ? '' : 's'} on ${parts.length} node${parts.length === 1 ? '' : 's'} · ${watchWords(parts)}`,
			...(wholeJob ? [wholeJobWarning(wholeJob)] : []),
			ROUTE,
			...missing,
			...parts.flatMap(part => [
				nodeLine(part, now),
				...part.job.ranks.map(rank => `  ${previewLine(rank, signal, false, NEVER_FORCES)}`),
			]),
		],
	};
}
