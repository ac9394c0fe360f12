import path from 'node:path';

// Which processes are a job's ranks, which are their workers, and which is the launcher: a pure
// function of process facts already read from /proc, so every rule has a table test.

/** The facts discovery needs about one process. `env` is null when it could not be read. */
export interface ProcessFacts {
	readonly pid: number;
	readonly ppid: number;
	readonly uid: number;
	readonly startTime: number;
	readonly argv: readonly string[];
	readonly env: ReadonlyMap<string, string> | null;
}

export type RankSelector =
	| {readonly kind: 'env'}
	| {readonly kind: 'pid'; readonly pid: number}
	| {readonly kind: 'match'; readonly pattern: RegExp};

export interface RankIds {
	readonly rank: number | null;
	readonly localRank: number | null;
	readonly worldSize: number | null;
}

export interface RankTree {
	readonly ranks: readonly {
		readonly process: ProcessFacts;
		readonly ids: RankIds;
		readonly workers: readonly number[];
	}[];
	readonly launcher: ProcessFacts | null;
}

const RANK_VARS = ['RANK', 'LOCAL_RANK', 'SLURM_PROCID'] as const;

/**
 * Never offered as a launcher: shells, terminals and session managers are ancestors of everything
 * the user starts, and signalling one would take down far more than the job.
 */
const NOT_A_LAUNCHER = new Set([
	'bash',
	'sh',
	'dash',
	'zsh',
	'fish',
	'ksh',
	'tcsh',
	'csh',
	'tmux',
	'tmux: server',
	'screen',
	'SCREEN',
	'sshd',
	'login',
	'su',
	'sudo',
	'systemd',
	'init',
	'slurmstepd',
	'sbatch',
	'salloc',
	'nohup',
	'setsid',
	'traintop',
]);

/** A non-negative integer environment value ("3", " 3 "); null when absent or anything else. */
export function envInteger(value: string | undefined): number | null {
	return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : null;
}

/** RANK (torchrun, DeepSpeed), else SLURM_PROCID (srun), else LOCAL_RANK (Lightning's spawned ranks). */
export function rankIds(env: ReadonlyMap<string, string>): RankIds {
	return {
		rank: envInteger(env.get('RANK')) ?? envInteger(env.get('SLURM_PROCID')) ?? envInteger(env.get('LOCAL_RANK')),
		localRank: envInteger(env.get('LOCAL_RANK')) ?? envInteger(env.get('SLURM_LOCALID')),
		worldSize: envInteger(env.get('WORLD_SIZE')) ?? envInteger(env.get('SLURM_NTASKS')),
	};
}

export function carriesRank(env: ReadonlyMap<string, string> | null): boolean {
	return env !== null && RANK_VARS.some(name => env.has(name));
}

function commandName(argv: readonly string[]): string {
	return path.basename(argv[0] ?? '');
}

/** The rank a process belongs to, as a comparable key ('' for a --match process without rank variables). */
function rankKey(facts: ProcessFacts): string {
	if (!facts.env || !carriesRank(facts.env)) return '';
	const ids = rankIds(facts.env);
	return `${ids.rank}/${ids.localRank}`;
}

export function buildRankTree(
	all: readonly ProcessFacts[],
	selector: RankSelector,
	self: {readonly pid: number; readonly uid: number},
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
	const own = all.filter(p => p.uid === self.uid && !excluded.has(p.pid) && p.pid > 1);
	let candidates: ProcessFacts[];
	switch (selector.kind) {
		case 'env':
			candidates = own.filter(p => carriesRank(p.env));
			break;
		case 'pid': {
			const scope = new Set([selector.pid, ...descendants(selector.pid)]);
			candidates = own.filter(p => scope.has(p.pid) && carriesRank(p.env));
			break;
		}
		case 'match': {
			// Matching processes, plus their descendants that carry a rank (spawned DataLoader workers
			// have another command line but inherit the environment).
			const matched = own.filter(p => selector.pattern.test(p.argv.join(' ')));
			const scope = new Set(matched.flatMap(p => [...descendants(p.pid)]));
			candidates = own.filter(p => matched.includes(p) || (scope.has(p.pid) && carriesRank(p.env)));
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
	const ranks = [...workersOf.entries()].map(([pid, workers]) => {
		const process = byPid.get(pid)!;
		const ids =
			process.env && carriesRank(process.env) ? rankIds(process.env) : {rank: null, localRank: null, worldSize: null};
		return {process, ids, workers: workers.sort((a, b) => a - b)};
	});
	ranks.sort((a, b) => (a.ids.rank ?? Infinity) - (b.ids.rank ?? Infinity) || a.process.pid - b.process.pid);

	return {
		ranks,
		launcher: findLauncher(
			ranks.map(r => r.process),
			byPid,
			ancestors,
			isCandidate,
			self,
		),
	};
}

/**
 * The nearest common ancestor of the ranks that is not itself a rank — torchrun's agent, `deepspeed`,
 * `accelerate launch` — if it is the user's own and not a shell, terminal or traintop's own ancestor.
 */
function findLauncher(
	ranks: readonly ProcessFacts[],
	byPid: ReadonlyMap<number, ProcessFacts>,
	ancestors: (pid: number) => number[],
	isCandidate: ReadonlySet<number>,
	self: {readonly pid: number; readonly uid: number},
): ProcessFacts | null {
	if (ranks.length === 0) return null;
	const [first, ...rest] = ranks.map(r => ancestors(r.pid));
	const common = first!.filter(pid => rest.every(chain => chain.includes(pid)));
	const nearest = common.find(pid => !isCandidate.has(pid));
	const launcher = nearest === undefined ? undefined : byPid.get(nearest);
	if (!launcher || launcher.pid <= 1 || launcher.uid !== self.uid) return null;
	if (ancestors(self.pid).includes(launcher.pid) || launcher.pid === self.pid) return null;
	if (NOT_A_LAUNCHER.has(commandName(launcher.argv))) return null;
	return launcher;
}
