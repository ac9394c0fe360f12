import type {ScheduledJob} from '../scheduler/task.js';
import {taskFromEnv, taskSchedulers} from '../scheduler/kinds.js';
import {envInteger} from './env-integer.js';
import {inClaimedStep} from './job-proof.js';
import {groupJobs, type GroupContext, type JobGroup} from './jobs.js';
import type {ProcessFacts} from './process-facts.js';
import {canBeRank, runsPython} from './programs.js';

// Which processes are ranks, which are their workers, which job each rank belongs to and which is each
// job's launcher: a pure function of process facts already read from /proc, so every rule has a table test.

// The tree's callers (discover.ts, the tests) take the process facts from here.
export type {ProcessFacts};

export type RankSelector =
	| {readonly kind: 'env'}
	| {readonly kind: 'pid'; readonly pid: number}
	| {readonly kind: 'match'; readonly pattern: RegExp};

export interface RankIds {
	readonly rank: number | null;
	readonly localRank: number | null;
	readonly worldSize: number | null;
}

export interface TreeRank {
	readonly process: ProcessFacts;
	readonly ids: RankIds;
	readonly workers: readonly number[];
	/** It runs in the scheduler's job and step its environment names (job-proof.ts): only then is its task shown and used. */
	readonly inStep: boolean;
}

export interface RankTree {
	/** Job by job (the order of `jobs`), each job's by rank. */
	readonly ranks: readonly TreeRank[];
	readonly jobs: readonly JobGroup<TreeRank>[];
	/** The launcher when there is exactly one job; null otherwise. */
	readonly launcher: ProcessFacts | null;
}

/** The first of `names` set to an integer in `env`; null when none is. */
function firstInteger(env: ReadonlyMap<string, string>, names: readonly string[]): number | null {
	for (const name of names) {
		const value = envInteger(env.get(name));
		if (value !== null) return value;
	}
	return null;
}

/**
 * RANK (torchrun, DeepSpeed), else a scheduler's task index (srun's), else LOCAL_RANK (Lightning's spawned ranks);
 * LOCAL_RANK and WORLD_SIZE before the scheduler's own.
 */
export function rankIds(env: ReadonlyMap<string, string>): RankIds {
	const vars = taskSchedulers().map(scheduler => scheduler.rankVars);
	return {
		rank: firstInteger(env, ['RANK', ...vars.map(v => v.rank), 'LOCAL_RANK']),
		localRank: firstInteger(env, ['LOCAL_RANK', ...vars.map(v => v.localRank)]),
		worldSize: firstInteger(env, ['WORLD_SIZE', ...vars.map(v => v.worldSize)]),
	};
}

/** RANK, LOCAL_RANK or a scheduler's task index is set: the process says it is a rank. */
export function carriesRank(env: ReadonlyMap<string, string> | null): boolean {
	if (env === null) return false;
	if (env.has('RANK') || env.has('LOCAL_RANK')) return true;
	return taskSchedulers().some(scheduler => env.has(scheduler.rankVars.rank));
}

/** The rank a process belongs to, as a comparable key ('' for a --match process without rank variables). */
function rankKey(facts: ProcessFacts): string {
	if (!facts.env || !carriesRank(facts.env)) return '';
	const ids = rankIds(facts.env);
	return `${ids.rank}/${ids.localRank}`;
}

export interface RankTreeLimits {
	/** traintop's own scheduler job (inside an allocation): only processes whose task is of it are looked at. */
	readonly scheduledJob: ScheduledJob | null;
	/** /proc/PID/cgroup's text (a scheduler task's step, when no step daemon is seen above it); null when unreadable. */
	readonly cgroupOf?: (pid: number) => string | null;
	/** Has the process a GPU device open: a --match process without rank variables that is not Python may train. */
	readonly usesGpu?: (pid: number) => boolean;
}

export function buildRankTree(
	all: readonly ProcessFacts[],
	selector: RankSelector,
	self: {readonly pid: number; readonly uid: number},
	limits: RankTreeLimits = {scheduledJob: null},
): RankTree {
	const byPid = new Map(all.map(p => [p.pid, p]));
	const children = new Map<number, number[]>();
	for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);

	const ancestors = (pid: number): number[] => {
		const chain: number[] = [];
		for (let p = byPid.get(pid); p && p.ppid > 0 && !chain.includes(p.ppid); p = byPid.get(p.ppid)) chain.push(p.ppid);
		return chain;
	};
	const descendants = (pid: number): Set<number> => {
		const found = new Set<number>();
		const stack = [pid];
		while (stack.length > 0) {
			for (const child of children.get(stack.pop()!) ?? []) {
				if (!found.has(child)) {
					found.add(child);
					stack.push(child);
				}
			}
		}
		return found;
	};

	// Only the user's own processes, and never traintop or its ancestors.
	const excluded = new Set([self.pid, ...ancestors(self.pid)]);
	// A shell, a scheduler's own program (its launcher, its step daemon) or another traintop is never a rank.
	const own = all.filter(p => p.uid === self.uid && !excluded.has(p.pid) && p.pid > 1 && canBeRank(p));
	// Inside an allocation, only that job's tasks: another job of the same user on this node is not ours.
	const ownJob = limits.scheduledJob;
	const inScope = (p: ProcessFacts) => {
		if (ownJob === null) return true;
		const task = p.env === null ? null : taskFromEnv(p.env);
		return task !== null && task.scheduler === ownJob.kind && task.jobId === ownJob.jobId;
	};
	let candidates: ProcessFacts[];
	switch (selector.kind) {
		case 'env':
			candidates = own.filter(p => carriesRank(p.env) && inScope(p));
			break;
		case 'pid': {
			const scope = new Set([selector.pid, ...descendants(selector.pid)]);
			candidates = own.filter(p => scope.has(p.pid) && carriesRank(p.env) && inScope(p));
			break;
		}
		case 'match': {
			// Matching processes, plus their descendants that carry a rank (spawned DataLoader workers
			// have another command line but inherit the environment).
			// A matched process without rank variables is a rank only if it trains: Python, or a GPU open (`tail -f
			// train.log` and `vim train.py` match too, and a signal meant for the job must never reach them).
			const matched = own.filter(
				p =>
					selector.pattern.test(p.argv.join(' ')) &&
					(carriesRank(p.env) || runsPython(p) || (limits.usesGpu?.(p.pid) ?? false)),
			);
			const scope = new Set(matched.flatMap(p => [...descendants(p.pid)]));
			candidates = own.filter(p => (matched.includes(p) || (scope.has(p.pid) && carriesRank(p.env))) && inScope(p));
			break;
		}
	}
	const isCandidate = new Set(candidates.map(p => p.pid));

	// A candidate whose parent is a candidate of the same rank is a worker (DataLoader, forkserver),
	// grouped under its topmost same-rank ancestor.
	const topOf = (p: ProcessFacts): ProcessFacts => {
		let top = p;
		for (
			let parent = byPid.get(top.ppid);
			parent && isCandidate.has(parent.pid) && rankKey(parent) === rankKey(top);
			parent = byPid.get(top.ppid)
		) {
			top = parent;
		}
		return top;
	};
	const workersOf = new Map<number, number[]>();
	for (const p of candidates) {
		const top = topOf(p);
		if (top.pid === p.pid) workersOf.set(p.pid, workersOf.get(p.pid) ?? []);
		else workersOf.set(top.pid, [...(workersOf.get(top.pid) ?? []), p.pid]);
	}
	const cgroups = new Map<number, string | null>();
	const cgroupOf = (pid: number): string | null => {
		if (!cgroups.has(pid)) cgroups.set(pid, limits.cgroupOf?.(pid) ?? null);
		return cgroups.get(pid) ?? null;
	};
	const context: GroupContext = {byPid, ancestors, isCandidate, self, cgroupOf};
	const ranks = [...workersOf.entries()].map(([pid, workers]) => {
		const process = byPid.get(pid)!;
		const ids =
			process.env && carriesRank(process.env) ? rankIds(process.env) : {rank: null, localRank: null, worldSize: null};
		return {process, ids, workers: workers.sort((a, b) => a - b), inStep: inClaimedStep(process, context)};
	});
	ranks.sort((a, b) => (a.ids.rank ?? Infinity) - (b.ids.rank ?? Infinity) || a.process.pid - b.process.pid);

	const jobs = groupJobs(ranks, context);
	const only = jobs.length === 1 ? jobs[0]!.launcher : null;
	return {
		ranks: jobs.flatMap(job => job.ranks),
		jobs,
		launcher: only === null ? null : byPid.get(only.pid)!,
	};
}
