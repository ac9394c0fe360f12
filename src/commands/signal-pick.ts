import type {Settings} from '../config/schema.js';
import {UsageError} from '../core/errors.js';
import type {Job, RankSet} from '../core/types.js';
import {jobLine} from '../format/jobs.js';
import {chooseJob, jobMatches} from '../ranks/choose-job.js';
import type {RankSelector} from '../ranks/tree.js';
import {type PickedJob, pickScheduledJob} from '../scheduler/registry.js';
import type {ScheduledJob} from '../scheduler/task.js';
import {scanRanks} from './ranks.js';
import {localPlan, type PlanCommon, type SignalPlan} from './signal-plan.js';

// Which one job a signal goes to and by which route, as `traintop signal` and `traintop drill` both pick it: the
// ranks found now, a scheduler's route when its job is picked (its flag, or --job J naming one), else the guarded
// local send to the one job chooseJob picks. One place, so that every command that signals obeys the same rules.

export interface PickInput {
	readonly settings: Settings;
	readonly selector: RankSelector;
	/** --job. */
	readonly job: string | null;
	/** A scheduler's job flag. */
	readonly scheduledJob: ScheduledJob | null;
	/** --batch: signal the scheduler job's batch shell. */
	readonly batch: boolean;
	/** RUN_DIR, checked to exist; null: none given. */
	readonly runDir: string | null;
	/** How the command is written in the words: 'signal', 'drill'. */
	readonly command: string;
	/** Its usage with a RUN_DIR, for "Pick one: …": 'traintop signal ACTION RUN_DIR'. */
	readonly withRunDir: string;
}

export type Picked =
	/** The plan, the ranks found, and the jobs seen here whose ranks it targets. */
	| {readonly kind: 'plan'; readonly plan: SignalPlan; readonly set: RankSet; readonly jobs: readonly Job[]}
	/** The scheduler's route refused (no running step, a batch shell that dies of it…): nothing may be sent. */
	| {readonly kind: 'refused'; readonly refused: string; readonly scheduled: PickedJob}
	/** No job at all was found. */
	| {readonly kind: 'none'};

/** The jobs found, and how to pick one: said when nothing (or several things) picked one. */
function refusal(input: PickInput, why: string, jobs: readonly Job[]): UsageError {
	return new UsageError(
		[
			`${input.command}: ${why}; nothing sent. Jobs found:`,
			...jobs.map(job => `  ${jobLine(job)}`),
			`Pick one: ${input.withRunDir} (the run dir its ranks use), --job ID, --pid PID (its launcher or a rank) or --match REGEX.`,
		].join('\n'),
	);
}

/** The plan for one job's signal; a UsageError (exit 2) where no one job is picked, or --batch has no scheduler job. */
export async function pickSignalPlan(input: PickInput, common: PlanCommon): Promise<Picked> {
	const set = await scanRanks(input.settings, input.selector, {runDir: input.runDir});
	// A job of a scheduler (its job flag, or --job J that names one) goes by that scheduler's route.
	const scheduled = pickScheduledJob(set, input.job, input.scheduledJob);
	const planned =
		scheduled === null
			? null
			: await scheduled.route.plan({
					...common,
					jobId: scheduled.jobId,
					set,
					batch: input.batch,
					pickedBy: scheduled.pickedBy,
				});
	// --job J that the scheduler does not know either: the jobs found here are listed, as for any unknown --job.
	const fallBack =
		planned !== null && 'refused' in planned && planned.unknownJob && !input.scheduledJob && !input.batch;
	if (scheduled !== null && planned !== null && 'refused' in planned && !fallBack)
		return {kind: 'refused', refused: planned.refused, scheduled};
	if (scheduled !== null && planned !== null && !('refused' in planned))
		return {kind: 'plan', plan: planned, set, jobs: set.jobs.filter(job => jobMatches(job, scheduled.jobId))};
	if (input.batch)
		throw new UsageError(
			"--batch: the batch shell belongs to a scheduler's job; name it with its job flag (or --job J)",
		);
	const choice = chooseJob(set, {job: input.job, runDir: input.runDir, selector: input.selector});
	if (choice.kind === 'none') return {kind: 'none'};
	if (choice.kind === 'refused') throw refusal(input, choice.why, choice.jobs);
	return {kind: 'plan', plan: localPlan([choice.job], choice.why, common), set, jobs: [choice.job]};
}
