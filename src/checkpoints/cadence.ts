import type {DeclaredCadence, SaveCadence, SentSignal} from '../core/types.js';
import type {HistorySave} from './save-history.js';

// The job's save cadence and when its next periodic save is due, from the saves traintop saw being written
// (save-history.ts) and what the run's files declare. Pure: `now` is given.
//
// Only periodic saves, and unknown-kind ones that sit on the cadence, make the cadence: a manual or emergency save
// comes whenever someone asks, and a save off the cadence (step 714 on a 300-step one) is one of those whatever its
// layout calls it. `last` and `best` are a periodic save's copy or mark (Lightning's last.ckpt is rewritten at every
// save, HF's best is one of its checkpoint-N): they count as that save, merged with it by step or time. Saves found on
// disk at the first scan are no time series (top-k survivors, a rotation's last few): the verdict waits for saves seen
// being written.

/** Periodic saves seen being written before a learned cadence is trusted: two gaps that agree. */
const SAVES_NEEDED = 3;
/** Saves with a step seen being written before the pace (steps per second) is known. */
const PACE_SAVES_NEEDED = 2;
/** The pace from the last few saves: recent enough to follow a slower phase, enough to smooth a slow save. */
const PACE_WINDOW = 6;
/** Step cadences are searched among the last this many periodic saves. */
const CADENCE_WINDOW = 50;

/**
 * How late past the expected time a save may come before it is OVERDUE: half a cadence (evaluation, a slower phase, a
 * save that takes longer to write all move a save by a fraction of the cadence), and never under 10 s (a cadence of a
 * second or two would otherwise be late at every hiccup of the file system or of our own rescans).
 */
const MARGIN_FRACTION = 0.5;
export const MARGIN_FLOOR_S = 10;

export function overdueMarginS(everySeconds: number): number {
	return Math.max(MARGIN_FLOOR_S, MARGIN_FRACTION * everySeconds);
}

export interface CadenceInput {
	/** The run dir's saves, oldest first (SaveHistory.saves). */
	readonly saves: readonly HistorySave[];
	/** What the cadence group's files declare; null: nothing. */
	readonly declared: (group: string) => DeclaredCadence | null;
	/** The signals traintop sent to the job, oldest first. */
	readonly signals: readonly SentSignal[];
	readonly now: number;
}

/** Saves on the job's own schedule: all but those someone asked for. */
const isPeriodicKind = (s: HistorySave): boolean => s.kind !== 'manual' && s.kind !== 'emergency';

/** Copies written with their save (last, best) are one save: the first of those less than this apart. */
const SAME_SAVE_MS = 1000;

function oneEach(saves: readonly HistorySave[]): HistorySave[] {
	const kept: HistorySave[] = [];
	for (const s of [...saves].sort((a, b) => a.time - b.time)) {
		const prev = kept.at(-1);
		if (prev && s.time - prev.time < SAME_SAVE_MS && (s.step === null || s.step === prev.step)) continue;
		kept.push(s);
	}
	return kept;
}

/** The group the job saves its periodic checkpoints in: that of the newest periodic (or unknown-kind) save. */
function cadenceGroup(saves: readonly HistorySave[]): string | null {
	const periodic = saves.filter(isPeriodicKind);
	const pool = periodic.some(s => s.seen) ? periodic.filter(s => s.seen) : periodic;
	return [...pool].sort((a, b) => a.time - b.time).at(-1)?.group ?? null;
}

interface StepCadence {
	readonly every: number;
	readonly residue: number;
}

/**
 * The step cadence that best explains `steps` (sorted, distinct): among the gaps between them and the sums of two
 * adjacent gaps (a save in between splits one gap in two), the one whose saves on it, less the saves it expects that
 * did not come and the saves off it, count most. So a missing save (a gap of 2C) and an extra one (714 on 300) cost
 * one each, and a small divisor that fits everything (100 for 300, 600, 700, 900) pays for the saves it expects.
 */
export function stepCadence(steps: readonly number[]): StepCadence | null {
	if (steps.length < 2) return null;
	const gaps = steps.slice(1).map((s, i) => s - steps[i]!);
	const candidates = new Set([...gaps, ...gaps.slice(1).map((g, i) => g + gaps[i]!)].filter(g => g > 0));
	let best: (StepCadence & {score: number; on: number}) | null = null;
	for (const every of candidates) {
		const byResidue = new Map<number, number[]>();
		for (const s of steps) {
			const r = ((s % every) + every) % every;
			byResidue.set(r, [...(byResidue.get(r) ?? []), s]);
		}
		for (const [residue, on] of byResidue) {
			if (on.length < 2) continue;
			const expected = (on.at(-1)! - on[0]!) / every + 1;
			const score = on.length - (expected - on.length) - (steps.length - on.length);
			if (best === null || score > best.score || (score === best.score && every > best.every))
				best = {every, residue, score, on: on.length};
		}
	}
	return best && {every: best.every, residue: best.residue};
}

/** Pairs of saves closer than this say nothing of the pace (a manual save beside a periodic one; a copy). */
const PACE_PAIR_MIN_MS = 250;

/**
 * Steps per second over the last saves seen with a step, back to a restart (a step lower than the one after it): the
 * median of the pace between consecutive ones, so that neither a stop (SIGSTOP, a long evaluation) nor a burst of
 * saves after one moves it.
 */
function pace(saves: readonly HistorySave[]): {readonly stepsPerSecond: number; readonly at: HistorySave} | null {
	const withSteps = oneEach(saves.filter(s => s.seen && s.step !== null));
	const run: HistorySave[] = [];
	for (let i = withSteps.length - 1; i >= 0 && run.length < PACE_WINDOW; i--) {
		const s = withSteps[i]!;
		const after = run[0];
		if (after && !(s.step! < after.step! && s.time < after.time)) break;
		run.unshift(s);
	}
	if (run.length < PACE_SAVES_NEEDED) return null;
	const paces: number[] = [];
	for (let i = 1; i < run.length; i++) {
		const ms = run[i]!.time - run[i - 1]!.time;
		if (ms >= PACE_PAIR_MIN_MS) paces.push((run[i]!.step! - run[i - 1]!.step!) / (ms / 1000));
	}
	if (paces.length === 0) return null;
	const stepsPerSecond = median(paces);
	return Number.isFinite(stepsPerSecond) && stepsPerSecond > 0 ? {stepsPerSecond, at: run.at(-1)!} : null;
}

function median(values: readonly number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
/** `no periodic save seen yet`, `1 periodic save seen`, `2 periodic saves seen`. */
const seen = (n: number, word: string): string => (n === 0 ? `no ${word} seen yet` : `${plural(n, word)} seen`);

/**
 * The emergency signal traintop sent that the job's last periodic save does not show it survived: the job is being
 * stopped, and is not late. A save within a cadence (at least the margin's floor) after the signal may be one the job
 * was writing when it came; a periodic save later than that says it went on training.
 */
function stopping(
	signals: readonly SentSignal[],
	lastPeriodic: number,
	everySeconds: number | null,
): SentSignal | undefined {
	const graceMs = Math.max(MARGIN_FLOOR_S, everySeconds ?? 0) * 1000;
	return signals.filter(s => s.expect === 'emergency' && lastPeriodic < s.at + graceMs).at(-1);
}

/** Why OVERDUE is suspended after `signal`. */
export function stoppingText(signal: SentSignal): string {
	return `traintop sent ${signal.signal} (emergency) to stop the job: not late while it stops`;
}

interface Known {
	readonly everySteps: number | null;
	readonly everySeconds: number | null;
	readonly from: 'declared' | 'learned';
	readonly source: string;
	readonly stepsPerSecond: number | null;
	readonly nextStep: number | null;
	readonly nextAt: number | null;
	readonly learning: string | null;
	/** The newest save on the cadence seen being written: the emergency signal counts from it. */
	readonly anchor: number;
}

function byTime(saves: readonly HistorySave[], group: string, declared: DeclaredCadence | null): Known | string {
	const periodic = oneEach(saves.filter(s => s.group === group && s.seen && isPeriodicKind(s)));
	const everySeconds = declared?.everySeconds ?? null;
	if (everySeconds !== null && declared) {
		const last = periodic.at(-1);
		if (!last) return 'learning: no periodic save seen yet, 1 needed';
		const base = {everySteps: null, from: 'declared' as const, source: declared.from, stepsPerSecond: null};
		return {
			...base,
			everySeconds,
			nextStep: null,
			nextAt: last.time + everySeconds * 1000,
			learning: null,
			anchor: last.time,
		};
	}
	if (periodic.length < SAVES_NEEDED)
		return `learning: ${seen(periodic.length, 'periodic save')}, ${SAVES_NEEDED} needed`;
	const recent = periodic.slice(-CADENCE_WINDOW);
	const every = median(recent.slice(1).map((s, i) => (s.time - recent[i]!.time) / 1000));
	const last = recent.at(-1)!;
	return {
		everySteps: null,
		everySeconds: every,
		from: 'learned',
		source: `${plural(periodic.length, 'periodic save')} seen`,
		stepsPerSecond: null,
		nextStep: null,
		nextAt: every > 0 ? last.time + every * 1000 : null,
		learning: every > 0 ? null : 'learning: the periodic saves seen came at once',
		anchor: last.time,
	};
}

function bySteps(saves: readonly HistorySave[], group: string, declared: DeclaredCadence | null): Known | string {
	const seenHere = saves.filter(s => s.group === group && s.seen);
	const periodic = oneEach(seenHere.filter(s => isPeriodicKind(s) && s.step !== null));
	const steps = [...new Set(periodic.slice(-CADENCE_WINDOW).map(s => s.step!))].sort((a, b) => a - b);
	const declaredSteps = declared?.everySteps ?? null;
	const learned = declaredSteps === null ? stepCadence(steps) : null;
	const every = declaredSteps ?? learned?.every ?? null;
	if (every === null) return `learning: ${seen(periodic.length, 'periodic save')}, ${SAVES_NEEDED} needed`;
	// On the cadence: the residue most saves share (HF and Lightning save at multiples; others one step after).
	const residue = learned?.residue ?? mostCommon(steps.map(s => ((s % every) + every) % every));
	const onCadence = periodic.filter(s => ((s.step! % every) + every) % every === residue);
	const from = declaredSteps !== null ? 'declared' : 'learned';
	if (from === 'learned' && onCadence.length < SAVES_NEEDED)
		return `learning: ${plural(onCadence.length, 'periodic save')} seen on a ${every}-step cadence, ${SAVES_NEEDED} needed`;
	const last = [...onCadence].sort((a, b) => a.step! - b.step!).at(-1);
	const measured = pace(seenHere);
	// The first step on the cadence past every save seen: one already passed by a later save (off the cadence) is a
	// save the job skipped, not one still to come.
	const newest = Math.max(last?.step ?? 0, measured?.at.step ?? 0);
	const nextStep = last ? last.step! + every * Math.max(1, Math.ceil((newest + 1 - last.step!) / every)) : null;
	const stepsPerSecond = measured?.stepsPerSecond ?? null;
	const base = {
		everySteps: every,
		from: from as 'declared' | 'learned',
		source: from === 'declared' ? declared!.from : `${plural(onCadence.length, 'periodic save')} seen`,
		stepsPerSecond,
		nextStep,
		anchor: last?.time ?? 0,
	};
	if (!measured || nextStep === null) {
		const stepped = seenHere.filter(s => s.step !== null).length;
		// Enough saves, but no pace from them: they came too close together to time (a burst, a copy), or the steps went
		// back (a restart) and the saves since are too few.
		const why = !last
			? 'learning: no periodic save seen yet, 1 needed'
			: stepped >= PACE_SAVES_NEEDED
				? `learning the pace: ${plural(stepped, 'save')} with a step seen, none yet far enough apart (or since a restart) to time`
				: `learning the pace: ${plural(stepped, 'save')} with a step seen, ${PACE_SAVES_NEEDED} needed`;
		return {...base, everySeconds: null, nextAt: null, learning: why};
	}
	// From the newest save with a step (a manual one too: its step and time say where training is).
	const nextAt = measured.at.time + ((nextStep - measured.at.step!) / stepsPerSecond!) * 1000;
	return {...base, everySeconds: every / stepsPerSecond!, nextAt, learning: null};
}

function mostCommon(values: readonly number[]): number {
	const counts = new Map<number, number>();
	for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
	let best = 0;
	let most = -1;
	for (const [v, n] of counts) if (n > most) [best, most] = [v, n];
	return best;
}

const UNKNOWN: Omit<SaveCadence, 'learning'> = {
	everySteps: null,
	everySeconds: null,
	from: null,
	source: null,
	stepsPerSecond: null,
	nextStep: null,
	nextAt: null,
	overdueAt: null,
	suspended: null,
};

/**
 * The cadence of the run dir's periodic saves and when the next is due. A time-based declaration (Lightning's
 * train_time_interval) or saves without steps go by the gaps seen; the rest by steps and the pace.
 */
export function saveCadence(input: CadenceInput): SaveCadence {
	const group = cadenceGroup(input.saves);
	if (group === null) return {...UNKNOWN, learning: `learning: no periodic save seen yet, ${SAVES_NEEDED} needed`};
	const declared = input.declared(group);
	// By time when declared so, or when the group's own saves carry no step (a `last` copy without one does not count).
	const own = input.saves.filter(s => s.group === group && isPeriodicKind(s) && s.kind !== 'last' && s.kind !== 'best');
	const timed = declared?.everySeconds != null || (declared?.everySteps == null && !own.some(s => s.step !== null));
	const known = timed ? byTime(input.saves, group, declared) : bySteps(input.saves, group, declared);
	if (typeof known === 'string') return {...UNKNOWN, learning: known};
	const {anchor, ...cadence} = known;
	const signal = stopping(input.signals, anchor, cadence.everySeconds);
	const suspended = signal ? stoppingText(signal) : null;
	const overdueAt =
		cadence.learning === null && suspended === null && cadence.nextAt !== null && cadence.everySeconds !== null
			? cadence.nextAt + overdueMarginS(cadence.everySeconds) * 1000
			: null;
	return {...cadence, overdueAt, suspended};
}
