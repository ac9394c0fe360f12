import {UsageError} from '../core/errors.js';
import type {Job, RankSet} from '../core/types.js';
import type {SaveExpectation, SaveOutcome} from '../checkpoints/save-attribution.js';
import {Fleet, type FleetConnection} from '../fleet/fleet.js';
import {awaitNodeSave} from '../fleet/node-save.js';
import {linkWords} from '../fleet/node-words.js';
import {watchNodeExits} from '../fleet/node-exit-watch.js';
import {type NodeSendResult, ranksByNode, sendAcrossNodes} from '../fleet/send-across.js';
import {chooseJob} from '../ranks/choose-job.js';
import {previewLine} from '../ranks/preview.js';
import type {SignalName} from '../ranks/signals.js';
import {endsWholeJob} from '../ranks/whole-job.js';
import type {RankSelector} from '../ranks/tree.js';
import type {SignalPlan, TargetResult} from './signal-plan.js';

// `traintop signal` over many nodes: the same one job, picked the same way, but its ranks are on several nodes and
// each node's agent sends to its own (every guard of ranks/send.ts applied there, never forced). Every node must be
// reachable: a save that reaches some ranks of a DDP job and not others leaves the others waiting in a collective.

/** How long the agents get to say hello and scan their ranks. */
const READY_TIMEOUT_MS = 30_000;

export interface AgentsPlanInput {
	readonly connections: readonly FleetConnection[];
	readonly intervalMs: number;
	readonly signal: SignalName;
	readonly label: string;
	/** The emergency action: the ranks save and exit. */
	readonly emergency: boolean;
	/** The save asked for (null: a raw signal): each node's watcher takes the next save for that kind. */
	readonly expect: SaveExpectation | null;
	readonly ranks: readonly number[] | undefined;
	readonly job: string | null;
	readonly runDir: string | null;
	readonly selector: RankSelector;
	readonly timeoutS: number;
}

/** One job's ranks across nodes: the jobs of every node, those with the same id (a scheduler's step, a rendezvous) as one. */
function mergedRanks(sets: readonly RankSet[]): RankSet {
	const jobs = new Map<string, Job>();
	for (const set of sets)
		for (const job of set.jobs) {
			const seen = jobs.get(job.id);
			jobs.set(job.id, seen ? {...seen, ranks: [...seen.ranks, ...job.ranks]} : job);
		}
	const named = [...new Set(sets.flatMap(set => set.runDirMatch?.jobs ?? []))];
	const evidence = sets.find(set => set.runDirMatch?.evidence)?.runDirMatch?.evidence ?? null;
	return {
		ranks: [...jobs.values()].flatMap(job => job.ranks),
		jobs: [...jobs.values()],
		launcher: null,
		departed: [],
		ended: [],
		runDirMatch: sets.some(set => set.runDirMatch) ? {jobs: named, evidence} : null,
		sampledAt: Math.max(0, ...sets.map(set => set.sampledAt)),
	};
}

/** `rdzv:10.0.0.1:29500: rank 0 pid 4250 on gpu1 (python3 train.py …), …`: enough to tell the jobs apart. */
function jobWords(job: Job): string {
	const ranks = job.ranks.map(
		rank => `rank ${rank.rank ?? '?'} pid ${rank.pid} on ${rank.host} (${rank.cmd.slice(0, 40)})`,
	);
	return `${job.id}: ${ranks.join(', ')}`;
}

/** Resolves once every node has a rank scan, or with why not (a node lost, or not ready in time). */
function ready(fleet: Fleet): Promise<string | null> {
	return new Promise(resolve => {
		const check = (): boolean => {
			const {nodes, time} = fleet.current();
			const lost = nodes.find(node => node.state === 'lost');
			if (lost) return finish(`node ${lost.name} ${linkWords(lost, time)}`);
			return nodes.length > 0 && nodes.every(node => node.snapshot?.ranks) ? finish(null) : false;
		};
		const finish = (why: string | null): true => {
			clearTimeout(timer);
			off();
			resolve(why);
			return true;
		};
		const off = fleet.subscribe(() => void check());
		const timer = setTimeout(() => {
			const waiting = fleet.current().nodes.filter(node => !node.snapshot?.ranks);
			finish(`no rank scan in ${READY_TIMEOUT_MS / 1000} s from ${waiting.map(node => node.name).join(', ')}`);
		}, READY_TIMEOUT_MS);
		check();
	});
}

/** The plan through the agents, or why not; `close` ends the agents (always call it). */
export async function agentsPlan(
	input: AgentsPlanInput,
): Promise<{plan: SignalPlan | null; refused: string | null; close: () => Promise<void>}> {
	const fleet = new Fleet({connections: input.connections, intervalMs: input.intervalMs});
	const close = () => fleet.close();
	fleet.start();
	const notReady = await ready(fleet);
	if (notReady !== null) return {plan: null, refused: `${notReady}: every node of the job must be reachable`, close};
	const nodes = fleet.current().nodes;
	const set = mergedRanks(nodes.map(node => node.snapshot!.ranks!));
	const choice = chooseJob(set, {job: input.job, runDir: input.runDir, selector: input.selector});
	if (choice.kind === 'none')
		return {plan: null, refused: `no ranks found on ${nodes.map(n => n.name).join(', ')}`, close};
	if (choice.kind === 'refused')
		return {plan: null, refused: `${choice.why} (jobs: ${choice.jobs.map(jobWords).join('; ')})`, close};
	const {job} = choice;
	const targets =
		input.ranks === undefined ? job.ranks : job.ranks.filter(r => r.rank !== null && input.ranks!.includes(r.rank));
	const unknown = (input.ranks ?? []).filter(n => !job.ranks.some(r => r.rank === n));
	if (unknown.length > 0) throw new UsageError(`--rank ${unknown.join(',')}: job ${job.id} has no such rank`);
	const hosts = [...ranksByNode(targets).keys()];
	const sends = [...ranksByNode(targets)].map(([node, ranks]) => ({node, job: job.id, ranks}));
	/** The ranks the send reached, by node: the exit watch waits on these only. */
	let reached: readonly NodeSendResult[] = [];
	const withSaves =
		nodes.find(node => node.snapshot?.checkpoints && hosts.includes(node.name)) ??
		nodes.find(n => n.snapshot?.checkpoints);
	const plan: SignalPlan = {
		route: 'agents',
		heading: `${input.label} to ${targets.length} of ${job.ranks.length} ranks of job ${job.id} on ${hosts.join(', ')} through their agents (${choice.why}):`,
		preview: targets.map(rank => `${rank.host}  ${previewLine(rank, input.signal, false, 'an agent never forces')}`),
		notes: [],
		wholeJob: endsWholeJob(job, targets, input.signal, {emergency: input.emergency, force: false}),
		question: `Send ${input.signal} to job ${job.id} on ${hosts.length} node(s)? [y/N] `,
		reach: `${targets.length} rank(s) of job ${job.id} on ${hosts.join(', ')}`,
		job: {id: job.id, identity: job.identity, nodes: hosts, run_dir: job.runDir},
		watchFrom: null,
		send: async () => {
			const results = await sendAcrossNodes(fleet, input.signal, sends, input.expect);
			reached = results.filter(r => r.outcome === 'sent');
			// The `signal --json` fields in their documented order.
			return results.map(
				(r): TargetResult => ({
					rank: r.rank,
					pid: r.pid,
					target: `${r.node} rank ${r.rank ?? '?'}`,
					outcome: r.outcome,
					reason: r.reason,
				}),
			);
		},
		watchExits: sinceMs => {
			const watch = watchNodeExits(fleet, sends, sinceMs, input.timeoutS * 1000);
			return {settle: () => watch.settle(reached), stop: watch.stop};
		},
		...(withSaves
			? {
					awaitSave: (sinceMs: number, expect: SaveExpectation): Promise<SaveOutcome> =>
						// A raw signal's kind the agent works out for itself, if its save signal: not noted here.
						awaitNodeSave(fleet, withSaves.name, sinceMs, expect, input.timeoutS * 1000, input.expect !== null),
					runDir: withSaves.snapshot?.checkpoints?.runDir ?? null,
				}
			: {}),
	};
	return {plan, refused: null, close};
}
