import type {JobIdentityKind} from '../core/types.js';
import {canBeLauncher, programName} from './programs.js';
import type {ProcessFacts} from './tree.js';

// Which ranks are one job: a pure function of process facts, so each rule has a table test. The identity
// is the strongest one the ranks carry (ARCHITECTURE.md "a job is the unit"):
//   1. the torchrun / elastic agent: TORCHELASTIC_RUN_ID and the agent's pid (run ids repeat: "none" is torchrun's default);
//   2. the SLURM job and step (SLURM_JOB_ID, SLURM_STEP_ID);
//   3. the rendezvous: MASTER_ADDR:MASTER_PORT and WORLD_SIZE (two live jobs cannot share a port on one host);
//   4. the nearest common launcher ancestor (deepspeed, accelerate, mpirun, a Python launcher);
//   5. nothing: a lone rank is a job of its own, never merged with another by guesswork.

/** What grouping knows of a process: tree.ts's facts (a type-only import: no module cycle at run time). */
type JobProcess = ProcessFacts;

export interface JobGroup<R> {
	readonly id: string;
	readonly identity: JobIdentityKind;
	readonly launcher: JobProcess | null;
	readonly ranks: readonly R[];
}

export interface GroupContext {
	readonly byPid: ReadonlyMap<number, JobProcess>;
	/** Parent, grandparent, … of a pid. */
	ancestors(pid: number): readonly number[];
	/** Pids that are ranks or workers of ranks: never a launcher. */
	readonly isCandidate: ReadonlySet<number>;
	readonly self: {readonly pid: number; readonly uid: number};
}

/** An ancestor the user may see as the job's launcher: theirs, not a shell or SLURM daemon, not traintop's own ancestor. */
function usableLauncher(pid: number | undefined, context: GroupContext): JobProcess | null {
	const launcher = pid === undefined ? undefined : context.byPid.get(pid);
	if (!launcher || launcher.pid <= 1 || launcher.uid !== context.self.uid) return null;
	if (launcher.pid === context.self.pid || context.ancestors(context.self.pid).includes(launcher.pid)) return null;
	return canBeLauncher(launcher) ? launcher : null;
}

/** The nearest ancestor of `pid` that is not a rank or a worker. */
function nearestNonRank(pid: number, context: GroupContext): number | undefined {
	return context.ancestors(pid).find(ancestor => !context.isCandidate.has(ancestor));
}

/** The nearest common ancestor of the processes that is not a rank, if it may be offered as a launcher. */
function commonLauncher(pids: readonly number[], context: GroupContext): JobProcess | null {
	if (pids.length === 0) return null;
	const [first, ...rest] = pids.map(pid => context.ancestors(pid));
	const common = first!.filter(pid => rest.every(chain => chain.includes(pid)));
	return usableLauncher(
		common.find(pid => !context.isCandidate.has(pid)),
		context,
	);
}

interface Keyed {
	readonly key: string;
	readonly id: string;
	readonly identity: JobIdentityKind;
	/** The launcher the identity itself names (the elastic agent), else found later as the common ancestor. */
	readonly launcher: JobProcess | null;
}

function keyOf(process: JobProcess, context: GroupContext): Keyed {
	const env = process.env ?? new Map<string, string>();
	const runId = env.get('TORCHELASTIC_RUN_ID');
	const agentPid = nearestNonRank(process.pid, context);
	if (runId !== undefined && agentPid !== undefined) {
		const agent = context.byPid.get(agentPid);
		const name = agent ? programName(agent) || 'elastic' : 'elastic';
		return {
			key: `elastic|${runId}|${agentPid}`,
			id: `${name}:${agentPid}`,
			identity: 'elastic',
			launcher: usableLauncher(agentPid, context),
		};
	}
	const slurmJob = env.get('SLURM_JOB_ID') ?? env.get('SLURM_JOBID');
	if (slurmJob !== undefined) {
		const step = env.get('SLURM_STEP_ID') ?? env.get('SLURM_STEPID');
		const id = step === undefined ? slurmJob : `${slurmJob}.${step}`;
		return {key: `slurm|${id}`, id: `slurm:${id}`, identity: 'slurm', launcher: null};
	}
	const addr = env.get('MASTER_ADDR');
	const port = env.get('MASTER_PORT');
	if (addr !== undefined && port !== undefined) {
		const world = env.get('WORLD_SIZE') ?? '?';
		return {key: `rdzv|${addr}|${port}|${world}`, id: `rdzv:${addr}:${port}`, identity: 'rendezvous', launcher: null};
	}
	const launcher = usableLauncher(agentPid, context);
	if (launcher) {
		return {
			key: `launcher|${launcher.pid}`,
			id: `${programName(launcher)}:${launcher.pid}`,
			identity: 'launcher',
			launcher,
		};
	}
	return {key: `process|${process.pid}`, id: `pid:${process.pid}`, identity: 'process', launcher: null};
}

/**
 * Groups ranks into jobs, oldest job first (by its oldest rank's start), each job's ranks in the order given.
 * Two groups whose ids collide (the same agent pid under two run ids) get the second one's key appended.
 */
export function groupJobs<R extends {readonly process: JobProcess}>(
	ranks: readonly R[],
	context: GroupContext,
): JobGroup<R>[] {
	const groups = new Map<string, {keyed: Keyed; ranks: R[]}>();
	for (const rank of ranks) {
		const keyed = keyOf(rank.process, context);
		const group = groups.get(keyed.key);
		if (group) group.ranks.push(rank);
		else groups.set(keyed.key, {keyed, ranks: [rank]});
	}
	const oldest = (list: readonly R[]) => Math.min(...list.map(r => r.process.startTime));
	const ordered = [...groups.values()].sort(
		(a, b) => oldest(a.ranks) - oldest(b.ranks) || (a.keyed.id < b.keyed.id ? -1 : 1),
	);
	const seen = new Set<string>();
	return ordered.map(({keyed, ranks: members}) => {
		const id = seen.has(keyed.id) ? `${keyed.id}/${keyed.key}` : keyed.id;
		seen.add(id);
		const launcher =
			keyed.launcher ??
			(keyed.identity === 'process'
				? null
				: commonLauncher(
						members.map(r => r.process.pid),
						context,
					));
		return {id, identity: keyed.identity, launcher, ranks: members};
	});
}
