import type {JobMemory} from '../../src/core/memory-types.js';
import type {Readiness} from '../../src/core/readiness-types.js';
import type {HostMemory, Snapshot} from '../../src/core/types.js';
import {checkpointIndex, GIB, NOW} from '../helpers/checkpoint-data.js';
import {h200Readings} from '../helpers/h200-health.js';
import {jobMemoryOf} from '../helpers/job-memory-data.js';
import {hungProgress} from '../helpers/progress-data.js';
import {scriptedMonitor, THRESHOLDS_AT_85} from '../helpers/scripted-monitor.js';
import {hostMemory, ScriptedSources} from '../helpers/snapshots.js';
import {rankSet} from '../ui/fixtures.js';

// Real snapshots for the exporter's tests: the Monitor's own tick over scripted readers (RAM, swap, the H200's busy
// recording through the real parser), with a job's ranks, memory, checkpoints, readiness and progress beside it.

export {NOW};

/** The host at 42 % of 64 GiB, swap 10 %, inside a job cgroup of 16 GiB holding 8 GiB (50 %). */
const CGROUP_MEMORY: HostMemory = {
	...hostMemory(42, 10),
	cgroup: {scope: 'job', version: 2, path: '/job_5', limitBytes: 16 * GIB, usedBytes: 8 * GIB, percent: 50},
};

/** A snapshot the Monitor made from these readings, at NOW. */
export async function monitorSnapshot(memory: HostMemory | Error, gpus = h200Readings('h200-health-busy', 10)) {
	const sources = new ScriptedSources();
	sources.memory = memory;
	if (gpus.length > 0) sources.setGpus(...gpus);
	const monitor = scriptedMonitor(sources, () => NOW, {host: 'node-7', thresholds: THRESHOLDS_AT_85});
	return monitor.tick();
}

/** torchrun:9999's readiness: at risk. */
function atRisk(job: string): Readiness {
	return {
		job,
		verdict: 'at-risk',
		signal: 'SIGTERM',
		reasons: [],
		saveS: null,
		leadS: 30,
		leadFrom: 'grace',
		lastSaveAt: NOW - 1_800_000,
		maxWorkAtRiskS: null,
	};
}

/** Two ranks of torchrun:9999 with their workers: rank 1 grows, rank 0 is steady. */
function jobMemory(): JobMemory[] {
	const [memory] = jobMemoryOf(rankSet(2));
	const trend = (rank: number, state: 'steady' | 'growing') =>
		({role: 'rank', rank, pid: 10_000 + rank, state, bytesPerMin: 0, windowS: 600, since: null}) as const;
	return [{...memory!, trends: [trend(0, 'steady'), trend(1, 'growing')], growthBytesPerMin: 20 * 1024 ** 2}];
}

/** The whole node: the Monitor's snapshot with the job's ranks, memory, checkpoints and verdicts. */
export async function fullSnapshot(): Promise<Snapshot> {
	const base = await monitorSnapshot(CGROUP_MEMORY);
	const ranks = rankSet(2);
	return {
		...base,
		ranks,
		jobMemory: jobMemory(),
		checkpoints: checkpointIndex(),
		readiness: [atRisk('torchrun:9999')],
		progress: [hungProgress('torchrun:9999', {rank: 1, pid: 10_001}, {ranks: [0], pids: [10_000]}, NOW)],
	};
}
