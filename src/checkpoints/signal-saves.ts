// Which save answers a signal traintop sent, and what kind that makes it. A job that saves on SIGUSR1 or SIGTERM
// rarely records which: a file named by its step (ckpt_step714.pt), a reason that says only "signal", or one that
// calls every save "periodic". traintop knows what it sent and when: the first complete save new since then is the
// one it asked for — manual after the save signal, emergency after the emergency signal — unless the job's own words
// say otherwise or the save could as well be one of its periodic ones (on its step cadence). Pure: the watcher
// passes the signals it noted and the cadence known before this scan.

import type {SaveCadence, ScannedCheckpoint, SentSignal} from '../core/types.js';
import {localTime} from '../format/time.js';
import {TIME_SLACK_MS} from './index-change.js';
import {namesOnlyASignal} from './layouts/save-reason.js';

/**
 * How long after a signal a save may still be its answer: a job saves at its next step, and a large model takes
 * minutes to write. Later, a save is more likely the job's own.
 */
export const SIGNAL_SAVE_WINDOW_MS = 5 * 60_000;

/** What one new save is to a signal: its answer (relabelled or not), a save that may be it, or not it. */
type Verdict =
	| {readonly answer: true; readonly kind: ScannedCheckpoint['kind']; readonly note: string | null}
	| {readonly answer: false; readonly note: string | null};

/** The step is one the job's periodic saves land on (from the cadence's next step, else from step 0). */
function onCadence(step: number, cadence: SaveCadence): boolean {
	const every = cadence.everySteps!;
	const anchor = cadence.nextStep ?? 0;
	return (((step - anchor) % every) + every) % every === 0;
}

function judge(c: ScannedCheckpoint, sent: SentSignal, cadence: SaveCadence | null): Verdict {
	const after = `after traintop's ${sent.signal} at ${localTime(sent.at).slice(11)}`;
	// The job said what it was: a manual or emergency save answers the signal as it is.
	if (c.kind === 'manual' || c.kind === 'emergency') return {answer: true, kind: c.kind, note: null};
	if (c.kind === 'unknown' && c.reason !== undefined && namesOnlyASignal(c.reason))
		return {answer: true, kind: sent.expect, note: `the job says "${c.reason}": ${after}`};
	const every = cadence?.everySteps ?? null;
	const known = every !== null && every > 0 && c.step !== null;
	const periodicStep = known && onCadence(c.step!, cadence!);
	if (c.kind === 'unknown') {
		if (!periodicStep) return {answer: true, kind: sent.expect, note: after};
		return {answer: false, note: `step ${c.step} is also a periodic step (every ${every}): may be the save ${after}`};
	}
	if (c.kind === 'periodic' && known && !periodicStep)
		return {
			answer: true,
			kind: sent.expect,
			note: `step ${c.step} is off the job's cadence (every ${every}): ${after}`,
		};
	return {answer: false, note: null};
}

interface Resolved {
	/** The checkpoints relabelled or noted, by path. */
	readonly changed: ReadonlyMap<string, ScannedCheckpoint>;
	/** Each signal's answer (the paths of its save), or null while none came. */
	readonly answers: readonly (readonly string[] | null)[];
}

/**
 * What may answer `sent`: once answered, that save only (so that when retention deletes it the next save is not
 * taken for it); else the complete saves not seen before it was sent, written at or after it (less the clock slack
 * of names and mtimes) and within SIGNAL_SAVE_WINDOW_MS, not a copy (last) or a mark (best), oldest first.
 */
function candidates(checkpoints: readonly ScannedCheckpoint[], sent: SentSignal): ScannedCheckpoint[] {
	if (sent.answeredBy !== undefined) return checkpoints.filter(c => sent.answeredBy!.includes(c.path));
	const before = new Set(sent.before ?? []);
	return checkpoints
		.filter(
			c =>
				c.status === 'complete' &&
				c.kind !== 'last' &&
				c.kind !== 'best' &&
				!before.has(c.path) &&
				c.time >= sent.at - TIME_SLACK_MS &&
				c.time <= sent.at + SIGNAL_SAVE_WINDOW_MS,
		)
		.sort((a, b) => a.time - b.time);
}

function resolve(
	checkpoints: readonly ScannedCheckpoint[],
	signals: readonly SentSignal[],
	cadence: SaveCadence | null,
): Resolved {
	const changed = new Map<string, ScannedCheckpoint>();
	const taken = new Set<string>();
	const answers: (readonly string[] | null)[] = [];
	for (const sent of signals) {
		const fresh = candidates(checkpoints, sent).filter(c => !taken.has(c.path));
		let answer: string[] | null = null;
		for (const c of fresh) {
			const verdict = judge(c, sent, cadence);
			if (verdict.answer) {
				// One save may be several files of its step (model_step714.pt, optim_step714.pt): all of them answer it.
				const parts = c.step === null ? [c] : fresh.filter(p => p.step === c.step && p.kind === c.kind);
				answer = parts.map(part => part.path);
				for (const part of parts) {
					taken.add(part.path);
					if (verdict.note !== null) changed.set(part.path, {...part, kind: verdict.kind, kindNote: verdict.note});
				}
				break;
			}
			// Possibly this signal's save: said once, and never over what an earlier signal's answer made of it.
			if (verdict.note !== null && !changed.has(c.path)) changed.set(c.path, {...c, kindNote: verdict.note});
		}
		answers.push(answer);
	}
	return {changed, answers};
}

/**
 * The checkpoints with the saves that answer `signals` (oldest first) relabelled: for each signal, the first
 * candidate save (above) that is not another signal's answer and whose kind the job left open (unknown, a bare
 * "signal" reason, a periodic save off the cadence) or named manual or emergency. A periodic save on the cadence is
 * passed over, an unknown one there is noted as possibly it. The same array when nothing changes.
 */
export function signalSaves(
	checkpoints: readonly ScannedCheckpoint[],
	signals: readonly SentSignal[],
	cadence: SaveCadence | null,
): readonly ScannedCheckpoint[] {
	if (signals.length === 0) return checkpoints;
	const {changed} = resolve(checkpoints, signals, cadence);
	if (changed.size === 0) return checkpoints;
	return checkpoints.map(c => changed.get(c.path) ?? c);
}

/**
 * The signals with the saves that answered them recorded (answeredBy), as signalSaves finds them in these checkpoints:
 * the watcher keeps them, so a signal stays answered by its save after retention deletes it. The same array when
 * nothing new was answered.
 */
export function withAnswers(
	checkpoints: readonly ScannedCheckpoint[],
	signals: readonly SentSignal[],
	cadence: SaveCadence | null,
): readonly SentSignal[] {
	const {answers} = resolve(checkpoints, signals, cadence);
	if (signals.every((sent, i) => sent.answeredBy !== undefined || answers[i] === null)) return signals;
	return signals.map((sent, i) =>
		sent.answeredBy !== undefined || answers[i] === null ? sent : {...sent, answeredBy: answers[i]!},
	);
}
