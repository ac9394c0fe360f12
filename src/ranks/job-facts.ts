import type {Job, JobIdentityKind, LauncherProcess, RankProcess} from '../core/types.js';
import {envInteger} from './tree.js';

// A job's facts from its ranks: world size, how many ranks this host should have, its SLURM ids.

/** `4`, `4(x2)` → 4: SLURM's tasks per node when every node has the same number; null for `3,2` or nothing. */
function uniformTasksPerNode(value: string | undefined): number | null {
	const match = value === undefined ? null : /^(\d+)(?:\(x\d+\))?$/.exec(value.trim());
	return match ? Number(match[1]) : null;
}

/** Ranks this host should run: LOCAL_WORLD_SIZE (torchrun), else SLURM's uniform tasks per node. */
function localWorldSize(envs: readonly (ReadonlyMap<string, string> | null)[]): number | null {
	for (const env of envs) {
		if (!env) continue;
		const size =
			envInteger(env.get('LOCAL_WORLD_SIZE')) ??
			uniformTasksPerNode(env.get('SLURM_STEP_TASKS_PER_NODE')) ??
			uniformTasksPerNode(env.get('SLURM_TASKS_PER_NODE'));
		if (size !== null) return size;
	}
	return null;
}

export function describeJob(
	id: string,
	identity: JobIdentityKind,
	launcher: LauncherProcess | null,
	ranks: readonly RankProcess[],
	members: readonly {readonly process: {readonly env: ReadonlyMap<string, string> | null}}[],
	runDir: string | null,
	cwd: string | null,
): Job {
	const local = localWorldSize(members.map(m => m.process.env));
	const present = new Set(ranks.map(r => r.localRank ?? r.rank)).size;
	return {
		id,
		identity,
		launcher,
		ranks,
		worldSize: ranks.find(r => r.worldSize !== null)?.worldSize ?? null,
		localWorldSize: local,
		allLocalRanksPresent: local === null || present >= local,
		runDir,
		cwd,
		slurm: ranks.find(r => r.slurm)?.slurm ?? null,
	};
}
