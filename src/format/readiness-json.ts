import type {Readiness, ReadinessReason} from '../core/readiness-types.js';
import {orderedReasons, reasonText, workAtRiskS} from './readiness.js';

// Readiness as the JSON outputs write it (`ranks --json` jobs[].readiness, headless {"event":"readiness"}, the drill,
// preflight): snake_case, each reason with its words and its figures, work at risk counted at the output's clock.

const round = (seconds: number): number => Math.round(seconds * 10) / 10;
/** Write times to the millisecond: what a file's times hold. */
const ms = (seconds: number): number => Math.round(seconds * 1000) / 1000;

function reasonJson(r: ReadinessReason, work: number | null): Record<string, unknown> {
	return {code: r.code, effect: r.effect, text: reasonText(r, work), ...reasonFigures(r)};
}

/** A reason's figures as every JSON output writes them (snake_case, those it has); the words are the caller's. */
export function reasonFigures(r: ReadinessReason): Record<string, unknown> {
	return {
		...(r.signal === undefined ? {} : {signal: r.signal}),
		...(r.rank === undefined ? {} : {rank: r.rank}),
		...(r.pid === undefined ? {} : {pid: r.pid}),
		...(r.count === undefined ? {} : {count: r.count}),
		...(r.exitCode === undefined ? {} : {exit_code: r.exitCode}),
		...(r.seconds === undefined ? {} : {seconds: ms(r.seconds)}),
		...(r.limitS === undefined ? {} : {limit_s: ms(r.limitS)}),
		...(r.name === undefined ? {} : {name: r.name}),
		...(r.source === undefined ? {} : {source: r.source}),
	};
}

export function readinessJson(r: Readiness, now: number): Record<string, unknown> {
	const work = workAtRiskS(r, now);
	return {
		verdict: r.verdict,
		signal: r.signal,
		reasons: orderedReasons(r).map(reason => reasonJson(reason, work)),
		save_s: r.saveS && {p50: ms(r.saveS.p50), max: ms(r.saveS.max), samples: r.saveS.samples, slowest: r.saveS.slowest},
		lead_s: r.leadS,
		lead_from: r.leadFrom,
		work_at_risk_s: work === null ? null : round(work),
		max_work_at_risk_s: r.maxWorkAtRiskS,
	};
}
