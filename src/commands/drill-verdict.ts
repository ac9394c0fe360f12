import type {Settings} from '../config/schema.js';
import {errorMessage} from '../core/errors.js';
import {jobReadiness, type ReadinessOptions} from '../core/job-readiness.js';
import type {Readiness, ReadinessVerdict} from '../core/readiness-types.js';
import type {CheckpointIndex, Job, RankSet} from '../core/types.js';
import type {RankSelector} from '../ranks/tree.js';
import {schedulerEntry} from '../scheduler/registry.js';
import type {SchedulerState} from '../scheduler/types.js';
import {scanRanks} from './ranks.js';

// The drill's verdict, judged after its save as the monitor judges it (core/job-readiness.ts): the job's ranks read
// again by the real discovery (their handlers now, and whether the drill left them running), the run dir's index
// with the fresh save among the saves, and the scheduler's deadline when the job is a scheduler's.

/** A scheduler's one read of the job's deadline (ranks --json's); null where there is none, or it fails. */
async function schedulerState(job: Job): Promise<SchedulerState | null> {
	const task = job.task;
	const entry = task === null ? null : schedulerEntry(task.scheduler);
	if (task === null || !entry?.readOnce) return null;
	try {
		return await entry.readOnce(task.jobId);
	} catch {
		return null; // no deadline from it: the verdict says what is missing
	}
}

export interface DrillVerdict {
	/** The targeted jobs' verdicts, the first the weakest (the drill's headline). */
	readonly readiness: readonly Readiness[];
	/** Jobs whose ranks are no longer there after the drill (their handlers could not be read again). */
	readonly gone: readonly string[];
	/** Why the ranks could not be read again, if they could not. */
	readonly problem: string | null;
}

const WEAKEST: readonly ReadinessVerdict[] = ['not-ready', 'at-risk', 'unknown', 'ready'];

export async function drillVerdict(
	input: {
		readonly settings: Settings;
		readonly selector: RankSelector;
		readonly runDir: string | null;
		readonly jobs: readonly Job[];
		readonly index: CheckpointIndex | null;
		readonly options: ReadinessOptions;
	},
	now: () => number = Date.now,
): Promise<DrillVerdict> {
	let fresh: RankSet | null = null;
	let problem: string | null = null;
	try {
		fresh = await scanRanks(input.settings, input.selector, {runDir: input.runDir});
	} catch (error) {
		problem = errorMessage(error);
	}
	const gone: string[] = [];
	const readiness = await Promise.all(
		input.jobs.map(async before => {
			const found = fresh?.jobs.find(job => job.id === before.id);
			if (found === undefined && fresh !== null) gone.push(before.id);
			// A job not found again is judged with no ranks: its handlers are unknown now, never taken from before.
			const job = found ?? {...before, ranks: []};
			// The run dir watched is this job's (given for it, or its rank's working directory): its saves are the job's.
			const ranks: RankSet = {
				...(fresh ?? emptySet(now())),
				jobs: [job],
				ranks: job.ranks,
				runDirMatch: null,
			};
			return jobReadiness(job, ranks, input.index, await schedulerState(job), input.options, now());
		}),
	);
	const order = (r: Readiness) => WEAKEST.indexOf(r.verdict);
	return {readiness: [...readiness].sort((a, b) => order(a) - order(b)), gone, problem};
}

function emptySet(sampledAt: number): RankSet {
	return {ranks: [], jobs: [], launcher: null, departed: [], ended: [], runDirMatch: null, sampledAt};
}
