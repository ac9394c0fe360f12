import type {JobIdentityKind, MembershipProof, UnprovenReason} from '../core/types.js';
import {
	type Anchor,
	anchorOf,
	claimedStep,
	type GroupContext,
	inClaimedStep,
	nearestNonRank,
	unanchoredReason,
	usableLauncher,
} from './job-proof.js';
import {taskSchedulers} from '../scheduler/kinds.js';
import {programName} from './programs.js';
import type {ProcessFacts} from './process-facts.js';

export type {GroupContext} from './job-proof.js';

// Which ranks are one job: a pure function of process facts, so each rule has a table test. The identity is the
// strongest one the ranks carry AND prove (ARCHITECTURE.md "a job is the unit"; job-proof.ts says what proves):
//   1. the torchrun / elastic agent: TORCHELASTIC_RUN_ID, proven by the agent above the rank (not PID 1, not a shell);
//   2. a scheduler's job and step (its task's variables), proven by the step's daemon above it or its cgroup;
//   3. the rendezvous: MASTER_ADDR:MASTER_PORT, proven by one launcher (or one shell session) that started them all;
//   4. the nearest launcher ancestor (deepspeed, accelerate, mpirun, a Python launcher);
//   5. nothing: a lone rank is a job of its own, never merged with another by guesswork.
// A rank whose variables name a job it is not proven part of is listed apart under that job (`unproven`), never
// one of its ranks; one whose claim names no proven job is a job of its own. Ids never carry internal keys.

export interface JobGroup<R> {
	readonly id: string;
	readonly identity: JobIdentityKind;
	readonly launcher: ProcessFacts | null;
	readonly provenBy: MembershipProof;
	readonly ranks: readonly R[];
	/** Ranks whose environment names this job without proof: never signal targets. */
	readonly unproven: readonly {readonly member: R; readonly reason: UnprovenReason}[];
}

/** The nearest common ancestor of the processes that is not a rank, if it may be offered as a launcher. */
function commonLauncher(pids: readonly number[], context: GroupContext): ProcessFacts | null {
	if (pids.length === 0) return null;
	const [first, ...rest] = pids.map(pid => context.ancestors(pid));
	const common = first!.filter(pid => rest.every(chain => chain.includes(pid)));
	return usableLauncher(
		common.find(pid => !context.isCandidate.has(pid)),
		context,
	);
}

interface Proven {
	readonly id: string;
	readonly identity: JobIdentityKind;
	readonly provenBy: MembershipProof;
	/** The launcher the proof itself names (the agent, the launcher above), else found later as the common ancestor. */
	readonly launcher: ProcessFacts | null;
}

/** A job id the rank's environment claims, and why that claim is not proven. */
interface Claim {
	readonly id: string;
	readonly reason: UnprovenReason;
}

const launcherId = (launcher: ProcessFacts) => `${programName(launcher) || 'launcher'}:${launcher.pid}`;

/** The elastic agent's job, when the agent above the rank is a real launcher (an orphan's "agent" is PID 1). */
function elasticJob(process: ProcessFacts, context: GroupContext): Proven | null {
	if (process.env?.get('TORCHELASTIC_RUN_ID') === undefined) return null;
	const agent = usableLauncher(nearestNonRank(process.pid, context), context);
	return agent && {id: launcherId(agent), identity: 'elastic', provenBy: 'launcher-tree', launcher: agent};
}

/** The scheduler's id of the job and step the rank's environment claims (`KIND:J.S`, one id on every node). */
function stepId(process: ProcessFacts): string | null {
	const claim = claimedStep(process.env);
	const scheduler = claim && taskSchedulers().find(one => one.kind === claim.scheduler);
	return claim && scheduler ? scheduler.jobId(claim) : null;
}

function rdzvId(process: ProcessFacts): string | null {
	const addr = process.env?.get('MASTER_ADDR');
	const port = process.env?.get('MASTER_PORT');
	return addr === undefined || port === undefined ? null : `rdzv:${addr}:${port}`;
}

/** The ranks of one rendezvous id with one anchor: proven together when theirs is the only anchor. */
interface RdzvPart<R> {
	readonly anchor: Anchor;
	readonly ranks: R[];
}

/**
 * Groups ranks into jobs, oldest job first (by its oldest rank's start), each job's ranks in the order given.
 */
export function groupJobs<R extends {readonly process: ProcessFacts}>(
	ranks: readonly R[],
	context: GroupContext,
): JobGroup<R>[] {
	const groups = new Map<string, {proven: Proven; ranks: R[]; unproven: {member: R; reason: UnprovenReason}[]}>();
	const join = (proven: Proven, rank: R) => {
		const group = groups.get(proven.id);
		if (group) group.ranks.push(rank);
		else groups.set(proven.id, {proven, ranks: [rank], unproven: []});
	};
	const claims = new Map<R, Claim[]>();
	const rdzv = new Map<string, {parts: Map<string, RdzvPart<R>>; loose: R[]}>();
	const rest: R[] = [];

	// 1 and 2: each rank proves these on its own.
	for (const rank of ranks) {
		const {process} = rank;
		const claimed: Claim[] = [];
		const elastic = elasticJob(process, context);
		if (elastic) {
			join(elastic, rank);
			continue;
		}
		const step = stepId(process);
		if (step !== null) {
			if (inClaimedStep(process, context)) {
				join({id: step, identity: 'scheduler', provenBy: 'scheduler-step', launcher: null}, rank);
				continue;
			}
			claimed.push({id: step, reason: 'not-in-step'});
		}
		const anchor = anchorOf(process, context);
		const rendezvous = rdzvId(process);
		if (rendezvous !== null) {
			const entry = rdzv.get(rendezvous) ?? {parts: new Map<string, RdzvPart<R>>(), loose: []};
			rdzv.set(rendezvous, entry);
			if (anchor) {
				const part = entry.parts.get(anchor.key) ?? {anchor, ranks: []};
				entry.parts.set(anchor.key, part);
				part.ranks.push(rank);
			} else entry.loose.push(rank);
			claimed.push({id: rendezvous, reason: anchor ? 'env-only' : unanchoredReason(process, context)});
		}
		claims.set(rank, claimed);
		if (rendezvous === null) rest.push(rank);
	}

	// 3: one launcher behind the rendezvous's ranks, else one shell session. A launcher's tree outweighs a shell (what
	// else that shell started only claims the job); two launchers, or two shells and no launcher, cannot be told apart
	// by their variables: neither is the rendezvous job, each rank is what its launcher or nothing makes it.
	for (const [id, {parts, loose}] of rdzv) {
		const all = [...parts.values()];
		const launched = all.filter(part => part.anchor.launcher !== null);
		const chosen = launched.length === 1 ? launched[0] : launched.length === 0 && all.length === 1 ? all[0] : undefined;
		if (chosen) {
			const {anchor} = chosen;
			const proven: Proven = {id, identity: 'rendezvous', provenBy: anchor.proof, launcher: anchor.launcher};
			for (const rank of chosen.ranks) join(proven, rank);
		}
		for (const part of all) if (part !== chosen) rest.push(...part.ranks);
		rest.push(...loose);
	}

	// 4 and 5: the launcher above; else a claim on a proven job lists it apart under that job; else a job of its own.
	for (const rank of rest) {
		const launcher = usableLauncher(nearestNonRank(rank.process.pid, context), context);
		if (launcher) {
			join({id: launcherId(launcher), identity: 'launcher', provenBy: 'launcher-tree', launcher}, rank);
			continue;
		}
		const claim = (claims.get(rank) ?? []).find(c => groups.has(c.id));
		if (claim) groups.get(claim.id)!.unproven.push({member: rank, reason: claim.reason});
		else join({id: `pid:${rank.process.pid}`, identity: 'process', provenBy: 'single-process', launcher: null}, rank);
	}

	const oldest = (list: readonly R[]) => Math.min(...list.map(r => r.process.startTime));
	const order = (list: readonly R[]) => {
		const index = new Map(ranks.map((r, i) => [r, i]));
		return [...list].sort((a, b) => index.get(a)! - index.get(b)!);
	};
	return [...groups.values()]
		.sort((a, b) => oldest(a.ranks) - oldest(b.ranks) || (a.proven.id < b.proven.id ? -1 : 1))
		.map(({proven, ranks: members, unproven}) => ({
			id: proven.id,
			identity: proven.identity,
			provenBy: proven.provenBy,
			launcher:
				proven.launcher ??
				(proven.identity === 'process'
					? null
					: commonLauncher(
							members.map(r => r.process.pid),
							context,
						)),
			ranks: order(members),
			unproven: order(unproven.map(u => u.member)).map(member => unproven.find(u => u.member === member)!),
		}));
}
