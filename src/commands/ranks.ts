import {hostname} from 'node:os';
import type {Writable} from 'node:stream';
import type {Settings} from '../config/schema.js';
import {UsageError} from '../core/errors.js';
import {describeSelector} from '../config/selection.js';
import type {RankSet} from '../core/types.js';
import {RankSampler} from '../ranks/discover.js';
import type {RankSelector} from '../ranks/tree.js';
import {readGpuProcessesOnce} from '../system/gpu-processes-once.js';
import {procReader, type ProcReader} from '../system/procfs.js';
import {formatRanks, ranksJson} from './ranks-format.js';
import {versioned} from '../format/json-version.js';
import {jobReadiness} from '../core/job-readiness.js';
import {oneShotProgress} from './ranks-progress.js';
import {oneShotMemory} from './ranks-memory.js';
import {existingRunDir, loadCheckpointIndex} from './checkpoints.js';
import {jobMatches} from '../ranks/choose-job.js';
import {jobOfTraintop, schedulerEntry} from '../scheduler/registry.js';
import type {ScheduledJob} from '../scheduler/task.js';
import type {SchedulerState} from '../scheduler/types.js';

/** CPU % needs two readings of the tick counters; half a second is long enough to be meaningful. */
const CPU_WINDOW_MS = 500;

/**
 * One scan with CPU % measured over a short window and GPU memory when nvidia-smi answers. Inside a scheduler's
 * job (an allocation, named in traintop's environment) only that job's tasks are ranks.
 */
export async function scanRanks(
	settings: Settings,
	selector: RankSelector,
	{
		runDir = null,
		proc = procReader(),
		onFirst,
	}: {
		readonly runDir?: string | null;
		readonly proc?: ProcReader;
		/** The first of the two readings (the progress judge wants both). */
		readonly onFirst?: (set: RankSet) => void;
	} = {},
): Promise<RankSet> {
	const sampler = new RankSampler({
		proc,
		selector,
		host: hostname(),
		stallAfterMs: settings.stallAfter * 1000,
		scheduledJob: jobOfTraintop(),
		runDir,
	});
	const [gpu, first] = await Promise.all([readGpuProcessesOnce(settings.nvidiaSmi), sampler.sample()]);
	onFirst?.(first);
	await new Promise(resolve => setTimeout(resolve, CPU_WINDOW_MS));
	return sampler.sample(gpu);
}

/** `traintop ranks [--json]`: exit 0 whether or not ranks were found (finding none is an answer). */
export async function runRanksCommand(options: {
	settings: Settings;
	selector: RankSelector;
	/** --job: only that job. */
	job: string | null;
	/** A scheduler's job given by its flag: with --json, its controller is asked once for its time limit and time left. */
	scheduledJob?: ScheduledJob | null;
	json: boolean;
	stdout: Writable;
	/** Where a controller that does not answer is said, keeping stdout's JSON clean. */
	stderr?: Writable;
	columns?: number;
	/** Whole rows and command lines (--wide, or stdout not a terminal), never cut to `columns`. */
	wide?: boolean;
	/** RUN_DIR: its job's saves, for the readiness verdict (their write times); null: none given. */
	runDir?: string | null;
}): Promise<number> {
	const runDir = options.runDir ? existingRunDir(options.runDir) : null;
	const progressOf = oneShotProgress(options.settings);
	const [scanned, index] = await Promise.all([
		scanRanks(options.settings, options.selector, {runDir, onFirst: progressOf.first}),
		runDir === null ? null : loadCheckpointIndex(runDir, options.settings.keep),
	]);
	const set = options.job === null ? scanned : onlyJob(scanned, options.job);
	const controller =
		options.scheduledJob && options.json ? await controllerJob(options.scheduledJob, options.stderr) : null;
	const now = Date.now();
	const {grace, maxWorkAtRisk} = options.settings;
	const readiness = set.jobs.map(job =>
		jobReadiness(job, set, index, controller, {graceS: grace, maxWorkAtRiskS: maxWorkAtRisk}, now),
	);
	const progress = progressOf.second(scanned).filter(p => set.jobs.some(job => job.id === p.job));
	const memory = await oneShotMemory(set);
	if (options.json) {
		options.stdout.write(
			`${JSON.stringify(versioned(ranksJson(set, controller, readiness, now, progress, memory)), null, 2)}\n`,
		);
	} else if (set.ranks.length === 0) {
		options.stdout.write(`${noRanksText(options.selector)}\n`);
	} else {
		const width = options.columns ?? 120;
		options.stdout.write(
			`${formatRanks(set, {width, wide: options.wide ?? false, readiness, progress, memory, now})}\n`,
		);
	}
	return 0;
}

/** The job as its controller gives it; null (said on stderr) when it does not answer or knows no such job. */
async function controllerJob(job: ScheduledJob, stderr: Writable | undefined): Promise<SchedulerState | null> {
	const entry = schedulerEntry(job.kind);
	if (!entry?.readOnce) return null;
	const state = await entry.readOnce(job.jobId);
	if (state.status === 'ok') return state;
	const why = state.status === 'not-found' ? 'the controller knows no such job' : state.reason;
	stderr?.write(`traintop: ${entry.name} job ${job.jobId}: ${why}; its time limit and time left are null\n`);
	return null;
}

/** The set with only the jobs `--job` names (an unknown one is a usage error naming what was found). */
function onlyJob(set: RankSet, wanted: string): RankSet {
	const jobs = set.jobs.filter(job => jobMatches(job, wanted));
	if (jobs.length === 0)
		throw new UsageError(`--job ${wanted}: no such job (found: ${set.jobs.map(j => j.id).join(', ') || 'none'})`);
	return {...set, jobs, ranks: jobs.flatMap(j => j.ranks), launcher: jobs.length === 1 ? jobs[0]!.launcher : null};
}

/**
 * Why no rank was found, where it was looked for. A --pid that is not running says so: the job it named has
 * ended (or the pid is wrong), which "no ranks found among process P" would leave the user to work out.
 */
export function noRanksText(selector: RankSelector, proc: ProcReader = procReader()): string {
	if (selector.kind === 'pid' && proc.stat(selector.pid) === null)
		return `no ranks found: process ${selector.pid} is not running (the job it started has ended, or the pid is wrong)`;
	return `no ranks found ${describeSelector(selector)}`;
}
