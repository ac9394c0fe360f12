import type {
	JobProgress,
	OddProcess,
	ProgressEvidence,
	ProgressVerdict,
	StepSource,
	WaitingRanks,
} from '../core/progress-types.js';
import {formatAge} from './duration.js';
import {jobExitWords} from './events.js';
import {printable} from './printable.js';
import {localTimeShort} from './time.js';

// A job's progress verdict in words, for the ranks pane's line, the headless line and the JSON's text: the odd rank
// out first ("rank 5 (pid 4242) sleeping in hrtimer_nanosleep since 10:42:07"), then the ranks waiting for it.

const VERDICT_WORDS: Readonly<Record<ProgressVerdict, string>> = {
	progressing: 'progressing',
	stalled: 'STALLED',
	hung: 'HUNG in a collective',
	unknown: 'unknown',
};

export function verdictWords(p: JobProgress): string {
	if (p.verdict === 'hung' && p.odd.length === 0 && p.evidence.some(e => e.code === 'gpu-spin'))
		return 'HUNG — spinning in a collective';
	return VERDICT_WORDS[p.verdict];
}

/** The verdict in a job's header: `progressing`, `HUNG 4 min`, `STALLED 40 s`; null while unknown (it says nothing). */
export function progressTag(p: JobProgress, now: number): string | null {
	if (p.verdict === 'progressing') return 'progressing';
	if (p.verdict === 'unknown') return null;
	return `${p.verdict === 'hung' ? 'HUNG' : 'STALLED'} ${formatAge((now - p.since) / 1000)}`;
}

/** "0–4, 6, 7": ranks as runs; a rank without a number is "?". */
function rankRuns(ranks: readonly (number | null)[]): string {
	const known = [...new Set(ranks.filter((r): r is number => r !== null))].sort((a, b) => a - b);
	const runs: string[] = [];
	for (let i = 0; i < known.length; ) {
		let j = i;
		while (j + 1 < known.length && known[j + 1] === known[j]! + 1) j++;
		runs.push(j - i >= 2 ? `${known[i]}–${known[j]}` : known.slice(i, j + 1).join(', '));
		i = j + 1;
	}
	if (ranks.some(r => r === null)) runs.push('?');
	return runs.join(', ');
}

/**
 * A kernel function's name as a person reads it: without the suffixes the compiler adds to a copy of it
 * (`poll_schedule_timeout.constprop.0`, `.isra.0`, `.part.0`, `.cold`); the JSON keeps the name as read.
 */
export function wchanWords(wchan: string): string {
	return printable(wchan.replace(/(\.(constprop|isra|part|cold|llvm)(\.\d+)?)+$/, ''));
}

function place(activity: string, wchan: string | null): string {
	const where = wchan === null ? '' : ` in ${wchanWords(wchan)}`;
	switch (activity) {
		case 'computing':
			return 'running on the CPU';
		case 'waiting':
			return `waiting${where}`;
		case 'sleeping':
			return `sleeping${where}`;
		case 'disk':
			return `in disk sleep (D)${where}`;
		case 'stopped':
			return 'stopped (SIGSTOP or a debugger)';
		case 'zombie':
			return 'exited, not yet reaped';
		default:
			return activity;
	}
}

function oddText(o: OddProcess, now: number): string {
	const who = o.role === 'worker' ? `its DataLoader worker (pid ${o.pid})` : `rank ${o.rank ?? '?'} (pid ${o.pid})`;
	if (o.activity === 'gone') return `${who} gone (${jobExitWords(o.exit ?? null)}) at ${localTimeShort(o.since, now)}`;
	const cpu = o.activity === 'computing' && o.cpuPercent != null ? ` at ${Math.round(o.cpuPercent)} %` : '';
	return `${who} ${place(o.activity, o.wchan)}${cpu} since ${localTimeShort(o.since, now)} (${formatAge((now - o.since) / 1000)})`;
}

function waitingText(w: WaitingRanks, now: number): string {
	const who = w.ranks.length === 1 ? `rank ${rankRuns(w.ranks)}` : `ranks ${rankRuns(w.ranks)}`;
	return `${who} ${place(w.activity, w.wchan)} for ${formatAge((now - w.since) / 1000)}`;
}

const SOURCE_WORDS: Readonly<Record<StepSource, string>> = {
	checkpoints: 'the checkpoints',
	'trainer-state': 'trainer_state.json',
	'metrics-csv': 'metrics.csv',
	'progress-file': 'the progress file',
};

/** One piece of evidence in words. */
export function evidenceText(e: ProgressEvidence): string {
	const age = (s?: number) => formatAge(s ?? 0);
	const step = e.step === null || e.step === undefined ? '' : ` (step ${e.step})`;
	switch (e.code) {
		case 'steps-moving':
			return `${SOURCE_WORDS[e.source ?? 'progress-file']} moved ${age(e.seconds)} ago${step}`;
		case 'steps-late':
			return `${SOURCE_WORDS[e.source ?? 'progress-file']} has not moved for ${age(e.seconds)}${step}; its window is ${age(e.limitS)}`;
		case 'cpu-moving':
			return 'every rank computing';
		case 'cpu-flat':
			return `rank ${e.rank ?? '?'} has used no CPU for ${age(e.seconds)}`;
		case 'cpu-without-steps':
			return 'the ranks use CPU but no step moved';
		case 'gpu-spin':
			return `GPU ${e.gpu} at ${e.percent} % and ${Math.round(e.watts ?? 0)} W of ${Math.round(e.limitW ?? 0)} W for ${age(e.seconds)}: spinning in a collective`;
		case 'gpu-working':
			return `GPU ${e.gpu} at ${e.percent} %, ${Math.round(e.watts ?? 0)} W`;
		case 'all-waiting':
			return 'every rank waits alike: no rank stands out';
		case 'nccl-ras-error':
			return `NCCL RAS: ${printable(e.name ?? '')}`;
	}
}

/** The verdict's sentence after "progress JOB: ". */
export function progressText(p: JobProgress, now: number): string {
	const head = verdictWords(p);
	if (p.verdict === 'unknown') return `${head} — watching (no rank seen computing yet; window ${formatAge(p.windowS)})`;
	if (p.verdict === 'progressing') {
		const step = p.step === null ? '' : `, step ${p.step}`;
		const pace = p.stepS === null ? '' : ` at ${p.stepS < 10 ? p.stepS.toFixed(2) : Math.round(p.stepS)} s a step`;
		return `${head}${step}${pace}`;
	}
	const since = ` since ${localTimeShort(p.since, now)} (${formatAge((now - p.since) / 1000)})`;
	const parts = [...p.odd.map(o => oddText(o, now)), ...p.waiting.map(w => waitingText(w, now))];
	const evidence = p.evidence.filter(e => e.code !== 'cpu-flat' || p.odd.length === 0).map(evidenceText);
	return `${head}${since} — ${[...parts, ...evidence].join('; ')}`;
}
