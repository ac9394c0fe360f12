import type {JobProgress, OddProcess, ProgressEvidence, WaitingRanks} from '../core/progress-types.js';
import {evidenceText, progressText} from './progress.js';

// A job's progress as the JSON outputs write it (`ranks --json` jobs[].progress, headless {"event":"progress"}):
// snake_case, times as ISO text, every figure the words were made from.

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const round = (n: number | null | undefined): number | null =>
	n === null || n === undefined ? null : Math.round(n * 100) / 100;

function oddJson(o: OddProcess): Record<string, unknown> {
	return {
		role: o.role,
		rank: o.rank,
		pid: o.pid,
		activity: o.activity,
		wchan: o.wchan,
		since: iso(o.since),
		cpu_percent: round(o.cpuPercent),
		exit: o.exit ?? null,
		...(o.of === undefined ? {} : {of: o.of}),
	};
}

function waitingJson(w: WaitingRanks): Record<string, unknown> {
	return {ranks: w.ranks, pids: w.pids, activity: w.activity, wchan: w.wchan, since: iso(w.since)};
}

function evidenceJson(e: ProgressEvidence): Record<string, unknown> {
	const {code, limitS, limitW, ...figures} = e;
	return {
		code,
		text: evidenceText(e),
		...Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, typeof v === 'number' ? round(v) : v])),
		...(limitS === undefined ? {} : {limit_s: round(limitS)}),
		...(limitW === undefined ? {} : {limit_w: round(limitW)}),
	};
}

export function progressJson(p: JobProgress, now: number): Record<string, unknown> {
	return {
		verdict: p.verdict,
		since: iso(p.since),
		last_progress_at: iso(p.lastProgressAt),
		window_s: round(p.windowS),
		step: p.step,
		step_s: round(p.stepS),
		odd_ranks: p.odd.map(oddJson),
		waiting: p.waiting.map(waitingJson),
		evidence: p.evidence.map(evidenceJson),
		text: progressText(p, now),
	};
}
