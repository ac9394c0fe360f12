import {lastSaveDuration} from '../checkpoints/save-duration.js';
import type {SchedulerJob} from '../scheduler/types.js';
import type {CheckpointIndex} from './checkpoint-types.js';
import type {Level} from './level.js';

// The scheduler's deadline against the save cadence, judged once per tick (the Monitor) and carried in the Snapshot:
// when the time limit ends the job, how much training since its last save is lost, and whether the warning signal
// leaves the job time for one more save. Figures and codes only; format/time-at-risk.ts puts them into words.

export interface DeadlineInput {
	/** Seconds until the time limit; null when there is none. */
	readonly timeLeftS: number | null;
	/** The warning signal's lead; null when the job has none (or it cannot be known). */
	readonly warningLeadS: number | null;
	/** The warning's signal, without SIG ('USR1'); null: the words say "the warning signal". */
	readonly warningSignal?: string | null;
	/** The usual time between two saves (the cadence, else the checkpoints' median interval); null before two saves. */
	readonly medianSaveIntervalS: number | null;
	readonly lastSaveAgeS: number | null;
	/** The index's OVERDUE (the next periodic save late by the cadence); absent: judged here, age against interval. */
	readonly overdue?: boolean;
	/** How long the last save took to write; null when unknown. */
	readonly lastSaveDurationS: number | null;
}

/**
 * Where the end falls against the saves: no save seen (none), one save and no interval yet (no-cadence), saves at an
 * unknown phase (unknown-phase), the next save overdue (overdue), no save before the end (none-before-end), or the
 * last save landing some time before it (last-before-end).
 */
export type CadenceCase = 'none' | 'no-cadence' | 'unknown-phase' | 'overdue' | 'none-before-end' | 'last-before-end';

export interface DeadlineRisk {
	/** Seconds until the limit (0 once reached); null: no time limit. */
	readonly timeLeftS: number | null;
	readonly cadence: CadenceCase | null;
	/** The save interval and the last save's age the case was judged on. */
	readonly intervalS: number | null;
	readonly lastSaveAgeS: number | null;
	/** Training time lost at the limit if nothing more is saved than the cadence gives; null when not known. */
	readonly workAtRiskS: number | null;
	/** The warning signal (without SIG) and its lead; lead null: none known. */
	readonly warningSignal: string | null;
	readonly warningLeadS: number | null;
	/** How long the last save took to write (checkpoints/save-duration.ts); null: unknown. */
	readonly saveDurationS: number | null;
	/** The warning's lead is shorter than the last save took. */
	readonly leadTooShort: boolean;
	/** warn: the cadence does not cover the end (no save at all, or one overdue), or the lead is too short. */
	readonly level: Extract<Level, 'ok' | 'warn'>;
}

interface Cadence {
	readonly cadence: CadenceCase;
	readonly workAtRiskS: number | null;
	/**
	 * Whether the cadence does not cover the end: no save at all (all the work at risk), or a save overdue (more than
	 * one interval at risk). Decided case by case, so the level never contradicts the words.
	 */
	readonly atRisk: boolean;
}

function cadenceOf(timeLeftS: number, input: DeadlineInput): Cadence {
	const {medianSaveIntervalS: interval, lastSaveAgeS: age} = input;
	if (interval === null || interval <= 0) {
		if (age === null) return {cadence: 'none', workAtRiskS: null, atRisk: true};
		// One save and no interval yet: nothing says the next is late.
		return {cadence: 'no-cadence', workAtRiskS: timeLeftS + age, atRisk: false};
	}
	// Saves every `interval` from an unknown phase: the end falls anywhere in one interval.
	if (age === null) return {cadence: 'unknown-phase', workAtRiskS: interval, atRisk: false};
	if (input.overdue ?? age > interval) return {cadence: 'overdue', workAtRiskS: timeLeftS + age, atRisk: true};
	// Saves at -age + k·interval from now; the last one before the end lands (timeLeft + age) mod interval before it.
	const lost = (timeLeftS + age) % interval;
	if (timeLeftS + age < interval) return {cadence: 'none-before-end', workAtRiskS: lost, atRisk: false};
	return {cadence: 'last-before-end', workAtRiskS: lost, atRisk: false};
}

export function judgeDeadline(input: DeadlineInput): DeadlineRisk {
	const warningSignal = input.warningSignal ?? null;
	const common = {
		intervalS: input.medianSaveIntervalS,
		lastSaveAgeS: input.lastSaveAgeS,
		warningSignal,
		warningLeadS: input.warningLeadS,
		saveDurationS: input.lastSaveDurationS,
	};
	if (input.timeLeftS === null)
		return {...common, timeLeftS: null, cadence: null, workAtRiskS: null, leadTooShort: false, level: 'ok'};
	const left = Math.max(0, input.timeLeftS);
	const saves = cadenceOf(left, input);
	const duration = input.lastSaveDurationS;
	const leadTooShort = input.warningLeadS !== null && duration !== null && input.warningLeadS < duration;
	return {
		...common,
		timeLeftS: left,
		cadence: saves.cadence,
		workAtRiskS: saves.workAtRiskS,
		leadTooShort,
		level: saves.atRisk || leadTooShort ? 'warn' : 'ok',
	};
}

/** The job's deadline against the run dir's saves; null when it is not running or has no time limit. */
export function deadlineRisk(job: SchedulerJob | null, checkpoints: CheckpointIndex | null): DeadlineRisk | null {
	if (job === null || job.phase !== 'running' || job.deadline.timeLeftS === null) return null;
	const last = checkpoints?.lastSave ?? null;
	// The cadence judged from the saves seen (cadence.ts) where there is one: the survivors' median gap is no cadence
	// on a top-k run. Its OVERDUE is the index's, so that the two never disagree.
	const cadence = checkpoints?.cadence;
	return judgeDeadline({
		timeLeftS: job.deadline.timeLeftS,
		warningLeadS: job.deadline.warning?.leadS ?? null,
		warningSignal: job.deadline.warning?.signal ?? null,
		medianSaveIntervalS: cadence ? cadence.everySeconds : (last?.medianIntervalS ?? null),
		...(cadence && last ? {overdue: last.overdue} : {}),
		lastSaveAgeS: last?.ageS ?? null,
		lastSaveDurationS: lastSaveDuration(checkpoints)?.seconds ?? null,
	});
}
