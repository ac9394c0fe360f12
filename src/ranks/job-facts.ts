import type {Job, JobIdentityKind, LauncherProcess, RankProcess} from '../core/types.js';
import {taskSchedulers} from '../scheduler/kinds.js';
import {envInteger} from './env-integer.js';

// A job's facts from its ranks: world size, how many ranks this host should have, its scheduler's task ids.

/** Ranks this host should run: LOCAL_WORLD_SIZE (torchrun), else what a scheduler's variables say (tasks per node). */
function localWorldSize(envs: readonly (ReadonlyMap<string, string> | null)[]): number | null {
	for (const env of envs) {
		if (!env) continue;
		let size = envInteger(env.get('LOCAL_WORLD_SIZE'));
		for (const scheduler of taskSchedulers()) size ??= scheduler.localWorldSize(env);
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
		task: ranks.find(r => r.task)?.task ?? null,
	};
}
