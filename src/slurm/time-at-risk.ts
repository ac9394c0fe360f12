import {formatAge, formatDuration} from '../format/duration.js';

// Time left against the save cadence: when the job's time limit ends it, how much training since its last save is
// lost, and whether the warning signal (--signal=SIG@LEAD) leaves the job time for one more save. Pure.

export interface TimeAtRiskInput {
	/** Seconds until the time limit; null when UNLIMITED. */
	readonly timeLeftS: number | null;
	/** The --signal lead time; null when the job has none (or it cannot be known). */
	readonly warningLeadS: number | null;
	/** The warning's signal, without SIG ('USR1'); the text says "the warning" without it. */
	readonly warningSignal?: string | null;
	/** The usual time between two saves (the checkpoints' median interval); null before two saves. */
	readonly medianSaveIntervalS: number | null;
	readonly lastSaveAgeS: number | null;
	/** The index's OVERDUE (the next periodic save late by the cadence); absent: judged here, age against interval. */
	readonly overdue?: boolean;
	/** How long the last save took to write; null when unknown. */
	readonly lastSaveDurationS: number | null;
}

export interface TimeAtRisk {
	readonly text: string;
	readonly level: 'ok' | 'warn';
	/** Training time lost at the limit if nothing more is saved than the cadence gives; null when not known. */
	readonly workAtRiskS: number | null;
}

interface Cadence {
	readonly text: string;
	readonly workAtRiskS: number | null;
	/**
	 * Whether the words say the cadence does not cover the end: no save at all (all the work at risk), or a save
	 * overdue (more than one interval at risk). Decided with the words, case by case, so the level never contradicts them.
	 */
	readonly atRisk: boolean;
}

function cadence(timeLeftS: number, input: TimeAtRiskInput): Cadence {
	const {medianSaveIntervalS: interval, lastSaveAgeS: age} = input;
	if (interval === null || interval <= 0) {
		if (age === null) return {text: 'no save seen yet — all the work is at risk', workAtRiskS: null, atRisk: true};
		const lost = timeLeftS + age;
		return {
			text: `no save cadence yet; the last save was ${formatAge(age)} ago — up to ${formatAge(lost)} of work lost if none comes`,
			workAtRiskS: lost,
			// One save and no interval yet: nothing says the next is late.
			atRisk: false,
		};
	}
	const every = formatAge(interval);
	if (age === null) {
		// Saves every `interval` from an unknown phase: the end falls anywhere in one interval.
		return {text: `at the usual ${every} cadence up to ${every} of work lost`, workAtRiskS: interval, atRisk: false};
	}
	if (input.overdue ?? age > interval) {
		const lost = timeLeftS + age;
		return {
			text: `the last save was ${formatAge(age)} ago, overdue at the usual ${every} cadence — up to ${formatAge(lost)} of work lost if none comes`,
			workAtRiskS: lost,
			atRisk: true,
		};
	}
	// Saves at -age + k·interval from now; the last one before the end lands (timeLeft + age) mod interval before it.
	const lost = (timeLeftS + age) % interval;
	if (timeLeftS + age < interval)
		return {
			text: `at the usual ${every} cadence no save comes before the end; the last was ${formatAge(age)} ago — up to ${formatAge(lost)} of work lost`,
			workAtRiskS: lost,
			atRisk: false,
		};
	return {
		text: `at the usual ${every} cadence the last save lands ${formatAge(lost)} before the end — up to ${formatAge(lost)} of work lost`,
		workAtRiskS: lost,
		atRisk: false,
	};
}

/**
 * The warning's lead against the last save's duration. Both are exact figures (`--signal=USR1@90` is 90 s, not
 * "2 min"), compared with each other: formatDuration, which keeps the seconds, not formatAge's one rounded unit.
 */
function warning(input: TimeAtRiskInput): {text: string; tooShort: boolean} {
	const name = input.warningSignal ? `SIG${input.warningSignal.replace(/^SIG/, '')} warning` : 'warning signal';
	if (input.warningLeadS === null) return {text: 'no warning signal before the end is known', tooShort: false};
	const text = `the ${name} comes ${formatDuration(input.warningLeadS)} before the end`;
	const duration = input.lastSaveDurationS;
	if (duration === null) return {text, tooShort: false};
	if (input.warningLeadS < duration)
		return {text: `${text}, less than the last save took (${formatDuration(duration)})`, tooShort: true};
	return {text: `${text}; the last save took ${formatDuration(duration)}`, tooShort: false};
}

export function timeAtRisk(input: TimeAtRiskInput): TimeAtRisk {
	if (input.timeLeftS === null) return {text: 'no time limit (UNLIMITED)', level: 'ok', workAtRiskS: null};
	const left = Math.max(0, input.timeLeftS);
	const head = left === 0 ? 'time limit reached' : `time limit in ${formatAge(left)}`;
	const saves = cadence(left, input);
	const signal = warning(input);
	const level = saves.atRisk || signal.tooShort ? 'warn' : 'ok';
	return {text: `${head}; ${saves.text}; ${signal.text}`, level, workAtRiskS: saves.workAtRiskS};
}
