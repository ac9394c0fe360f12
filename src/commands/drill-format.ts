import type {SaveOutcome} from '../checkpoints/save-attribution.js';
import type {Readiness} from '../core/readiness-types.js';
import type {Checkpoint} from '../core/types.js';
import {versioned} from '../format/json-version.js';
import type {SignalName} from '../ranks/signals.js';
import type {DrillVerdict} from './drill-verdict.js';
import {leadClause, reasonText, workAtRiskS} from '../format/readiness.js';
import {readinessJson as monitorReadinessJson} from '../format/readiness-json.js';
import type {SignalPlan, TargetResult} from './signal-plan.js';

// The drill's answer: one line (the fresh save, how long after the signal it was complete, how long it took to
// write, the lead it gets, the verdict) and the reasons behind a verdict other than ready; or one JSON object.

/** Seconds as the drill's line says them: `11.8 s`, one decimal. */
const secs = (seconds: number): string => `${seconds.toFixed(1)} s`;

/** Rounded to a tenth for JSON: the files' clocks say no more. */
const tenth = (seconds: number): number => Math.round(seconds * 10) / 10;

/** The save that answered the drill. */
export interface DrillAnswer {
	readonly checkpoint: Checkpoint;
	/** How the watcher attributed it (a save that may be it carries a note). */
	readonly outcome: SaveOutcome;
	/** Seconds from the signal's send to when the watcher saw the save complete. */
	readonly afterSignalS: number;
}

/** `drill: ckpt_step714.pt complete 3.4 s after the signal, written in 3.0 s; the warning gives 30.0 s: ready`. */
function drillLine(answer: DrillAnswer, readiness: Readiness | null): string {
	const c = answer.checkpoint;
	const written =
		c.writeS === null ? 'write time not measured (no file creation times here)' : `written in ${secs(c.writeS)}`;
	const judged =
		readiness === null ? 'no rank of the job on this node to judge' : `${leadClause(readiness)}: ${readiness.verdict}`;
	return `drill: ${c.name} complete ${secs(answer.afterSignalS)} after the signal, ${written}; ${judged}`;
}

/** The reasons a verdict other than ready rests on (the facts behind a ready one are in the line and --json). */
function reasonLines(readiness: Readiness, now: number): string[] {
	if (readiness.verdict === 'ready') return [];
	return readiness.reasons
		.filter(r => r.effect !== 'fact')
		.map(r => `  ${r.effect === 'note' ? 'note' : r.effect}: ${reasonText(r, workAtRiskS(readiness, now))}`);
}

/** --json's `readiness`: the verdict as the monitor's JSON carries it (format/readiness-json.ts), and its job. */
function readinessJson(readiness: Readiness, now: number): Record<string, unknown> {
	return {
		job: readiness.job,
		...monitorReadinessJson(readiness, now),
		last_save_at: readiness.lastSaveAt === null ? null : new Date(readiness.lastSaveAt).toISOString(),
	};
}

/** --json's `checkpoint`: the save that answered the drill; null when none came. */
function checkpointJson(answer: DrillAnswer | null): Record<string, unknown> | null {
	if (answer === null) return null;
	const c = answer.checkpoint;
	return {
		name: c.name,
		path: c.path,
		step: c.step,
		kind: c.kind,
		kind_note: c.kindNote ?? null,
		attributed: answer.outcome.attributed,
		note: answer.outcome.note,
		completed_at: new Date(c.time).toISOString(),
	};
}

/** What the drill did and found. */
export interface DrillReport {
	readonly plan: SignalPlan;
	readonly signal: SignalName;
	readonly results: readonly TargetResult[];
	/** Epoch ms the signal was sent. */
	readonly sentAt: number;
	/** The save that answered it; null: none came (or the signal reached no rank). */
	readonly answer: DrillAnswer | null;
	/** Saves that completed after the signal but were being written when it went: passed over. */
	readonly underWay: readonly string[];
	readonly verdict: DrillVerdict;
	readonly now: number;
}

/** --json: one object, `signal --json`'s keys (job, signal, route, results) and the drill's. */
export function drillJson(r: DrillReport): Record<string, unknown> {
	const [headline, ...others] = r.verdict.readiness;
	return versioned({
		job: r.plan.job,
		signal: r.signal,
		route: r.plan.route,
		results: r.results,
		sent_at: new Date(r.sentAt).toISOString(),
		checkpoint: checkpointJson(r.answer),
		after_signal_s: r.answer === null ? null : tenth(r.answer.afterSignalS),
		// To the millisecond, as readiness's save_s (format/readiness-json.ts): what a file's times hold.
		write_s: r.answer?.checkpoint.writeS == null ? null : Math.round(r.answer.checkpoint.writeS * 1000) / 1000,
		...(r.underWay.length > 0 ? {under_way: r.underWay} : {}),
		readiness: headline === undefined ? null : readinessJson(headline, r.now),
		// A scheduler's job seen here as several steps: each step's verdict, the weakest first (the one above).
		...(others.length > 0 ? {readiness_of_jobs: r.verdict.readiness.map(one => readinessJson(one, r.now))} : {}),
		...(r.verdict.gone.length > 0 ? {gone: r.verdict.gone} : {}),
		...(r.verdict.problem === null ? {} : {ranks_problem: r.verdict.problem}),
	});
}

/** The text answer: the drill's line, then the reasons behind a verdict other than ready. */
export function drillText(r: DrillReport): string[] {
	const headline = r.verdict.readiness[0] ?? null;
	const lines: string[] = [];
	if (r.answer !== null) lines.push(drillLine(r.answer, headline));
	else if (headline !== null) lines.push(`drill: no save came; from the saves seen before: ${headline.verdict}`);
	if (r.answer?.outcome.note) lines.push(`  note: ${r.answer.outcome.note}`);
	for (const name of r.underWay)
		lines.push(`  note: ${name} was being written when the signal went: not the drill's save`);
	for (const one of r.verdict.readiness) lines.push(...reasonLines(one, r.now));
	if (r.verdict.problem !== null) lines.push(`  the ranks could not be read again: ${r.verdict.problem}`);
	for (const id of r.verdict.gone)
		lines.push(`  job ${id} is gone after the drill: its handlers could not be read again`);
	return lines;
}
