import type {DepartedProcess, EndedJob, Job, RankProcess, RankSet} from '../../src/core/types.js';

// Ranks, jobs and rank samples as the sampler makes them, for the job-event and Monitor tests: only the
// facts events read are varied (pid, start time, stalled, stopped, the job); the rest is a plausible torch rank.

export const T0 = new Date(2026, 10, 22, 12, 3, 11).getTime();

function rank(n: number, job: string, extra: Partial<RankProcess> = {}): RankProcess {
	return {
		rank: n,
		localRank: n,
		worldSize: null,
		pid: 4201 + n,
		ppid: 4200,
		startTime: 9000 + n,
		startedAt: T0 - 3_600_000,
		host: 'node1',
		cmd: 'python3 train.py',
		state: extra.stopped ? 'T' : 'S',
		cpuPercent: 98,
		rssBytes: null,
		gpuMemoryBytes: null,
		signals: {},
		workers: [],
		task: null,
		stalled: false,
		stopped: false,
		job,
		...extra,
	};
}

/** A torchrun job with `count` ranks; `each` varies rank n. */
export function job(id: string, count: number, each: (n: number) => Partial<RankProcess> = () => ({})): Job {
	const launcherPid = Number(/\d+$/.exec(id)?.[0] ?? 4200);
	return {
		id,
		identity: 'elastic',
		launcher: {pid: launcherPid, startTime: 8999, cmd: 'torchrun --nproc-per-node 4 train.py'},
		ranks: Array.from({length: count}, (_, n) => rank(n, id, {worldSize: count, ...each(n)})),
		worldSize: count,
		localWorldSize: count,
		allLocalRanksPresent: true,
		runDir: null,
		cwd: '/runs/exp1',
		task: null,
	};
}

export function rankSet(
	jobs: readonly Job[],
	extra: {departed?: DepartedProcess[]; ended?: EndedJob[]; runDirMatch?: RankSet['runDirMatch']; at?: number} = {},
): RankSet {
	return {
		ranks: jobs.flatMap(j => j.ranks),
		jobs,
		launcher: jobs.length === 1 ? (jobs[0]?.launcher ?? null) : null,
		departed: extra.departed ?? [],
		ended: extra.ended ?? [],
		runDirMatch: extra.runDirMatch ?? null,
		sampledAt: extra.at ?? T0,
	};
}

export function ended(id: string, exit: EndedJob['exit'], endedAt = T0): EndedJob {
	return {
		id,
		launcher: {pid: 4200, startTime: 8999, cmd: 'torchrun --nproc-per-node 4 train.py'},
		ranks: 4,
		runDir: null,
		endedAt,
		exit,
	};
}
