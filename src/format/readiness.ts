import type {Readiness, ReadinessEffect, ReadinessReason} from '../core/readiness-types.js';
import {exactSpan, formatAge, formatDuration} from './duration.js';
import {printable} from './printable.js';

// Preemption readiness (core/readiness.ts) in words, for the TUI's line, headless, `ranks`, the drill and
// preflight alike: `ready — every rank handles SIGTERM; saves take 2.0 s (2.1 s at most, 6 saves); --grace gives
// 30 s; 3 min of work since the last save`.

const bare = (signal: string | undefined): string => (signal ?? 'SIGTERM').replace(/^SIG/, '');

function who(r: ReadinessReason): string {
	const rank = r.rank === null || r.rank === undefined ? 'a rank' : `rank ${r.rank}`;
	return r.pid === undefined ? rank : `${rank} (pid ${r.pid})`;
}

const TRAP_WORDS: Readonly<Record<string, string>> = {
	requeues: 'requeues the job',
	cancels: 'cancels the job',
	ends: 'ends the batch shell',
	other: 'runs a command other than kill',
};

const LEAD_WORDS: Readonly<Record<string, (s: string, signal: string) => string>> = {
	'scheduler-warning': (s, signal) => `the SIG${signal} warning comes ${s} before the end`,
	grace: s => `--grace gives ${s}`,
	'kill-wait': s => `the kill comes ${s} after SIGTERM (the scheduler's kill wait)`,
};

function leadText(r: ReadinessReason, signal: string): string {
	const span = exactSpan(r.seconds ?? 0);
	if (r.source !== undefined) return `${printable(r.source)} leaves ${span} before its kill`;
	const words = LEAD_WORDS[r.name ?? ''];
	return words ? words(span, signal) : `${span} from the signal to the kill`;
}

function workText(r: ReadinessReason, workS: number | null): string {
	const work = workS === null ? 'the work' : `${formatAge(workS)} of work`;
	if (r.code === 'work-over-limit')
		return `${work} since the last save, more than the ${exactSpan(r.limitS ?? 0)} accepted`;
	const limit = r.limitS === undefined ? '' : ` (${exactSpan(r.limitS)} accepted)`;
	return `${work} since the last save${limit}`;
}

/** One reason in words; `workS`: the work since the last save, as the caller's clock counts it. */
export function reasonText(r: ReadinessReason, workS: number | null): string {
	const sig = bare(r.signal);
	const launcher = printable(r.name ?? 'the launcher');
	switch (r.code) {
		case 'no-handler':
			return `${who(r)} has no SIG${sig} handler: it dies unsaved`;
		case 'ignored':
			return `${who(r)} ignores SIG${sig}: it never saves on it`;
		case 'batch-shell-only':
			return `B:${sig} goes to the batch shell alone, which has no trap for it: the ranks never see it`;
		case 'shell-trap-no-forward':
			return `B:${sig} goes to the batch shell, whose trap ${TRAP_WORDS[r.name ?? 'other'] ?? TRAP_WORDS.other}: the ranks may never get it`;
		case 'shell-trap-unread':
			return `B:${sig} goes to the batch shell alone, and what its trap does was not read (no batch script)`;
		case 'shell-forwards':
			return `B:${sig} goes to the batch shell, whose trap passes it on with kill (to the processes it names)`;
		case 'shell-trap-unreached':
			return `the batch shell's trap for SIG${sig} never runs: the warning goes to the steps (no B:)`;
		case 'saves-never-complete':
			return 'checkpoints were begun and none completed';
		case 'save-over-lead':
			return `the slowest save took ${formatDuration(r.seconds ?? 0)} (${printable(r.name ?? '?')}), longer than the ${exactSpan(r.limitS ?? 0)} it gets`;
		case 'work-over-limit':
		case 'work-since-save':
			return workText(r, workS);
		case 'launcher-kills':
			return `${launcher} passes SIG${sig} on and SIGKILLs ranks still running ${exactSpan(r.seconds ?? 0)} later`;
		case 'launcher-dies':
			return `${launcher} (pid ${r.pid ?? '?'}) has no SIG${sig} handler and dies of it, leaving its ranks`;
		case 'launcher-exit-code':
			return `${launcher} exits ${r.exitCode ?? '?'} when a rank fails, whatever the rank's code: a batch script testing for the rank's (requeue on 99) never sees it`;
		case 'no-save-seen':
			return r.name === 'no-run-dir' ? 'no run dir watched: save times unknown' : 'no complete save seen yet';
		case 'no-deadline':
			return 'no deadline known: pass --grace';
		case 'no-ranks':
			return r.count === undefined ? 'no ranks seen' : `${r.count} rank(s) whose SIG${sig} handling was not read`;
		case 'handlers':
			return r.count === 1 ? `the rank handles SIG${sig}` : `every rank handles SIG${sig} (${r.count})`;
		case 'save-time':
			return `saves take ${formatDuration(r.seconds ?? 0)} (${formatDuration(r.limitS ?? 0)} at most, ${r.count} save${r.count === 1 ? '' : 's'})`;
		case 'lead':
			return leadText(r, sig);
	}
}

/** Problems first, then what is missing, the figures behind the verdict, and the traps that do not decide it. */
const SHOWN_ORDER: readonly ReadinessEffect[] = ['not-ready', 'at-risk', 'unknown', 'fact', 'note'];

export function orderedReasons(r: Readiness): ReadinessReason[] {
	return SHOWN_ORDER.flatMap(effect => r.reasons.filter(reason => reason.effect === effect));
}

const LEAD_GIVER: Readonly<Record<string, string>> = {
	grace: '--grace gives',
	'scheduler-warning': 'the warning gives',
	'kill-wait': "the scheduler's kill wait gives",
};

/** The drill's `the warning gives 120.0 s` (to the tenth, as its timings): the lead the fresh save is weighed against. */
export function leadClause(r: Readiness): string {
	if (r.leadS === null) return 'no deadline known (pass --grace)';
	return `${LEAD_GIVER[r.leadFrom ?? ''] ?? 'the lead is'} ${r.leadS.toFixed(1)} s`;
}

/** Seconds of work since the last complete save at `now`; null when no save is known. */
export function workAtRiskS(r: Readiness, now: number): number | null {
	return r.lastSaveAt === null ? null : Math.max(0, (now - r.lastSaveAt) / 1000);
}

/** `at-risk — the slowest save took 40 s (ckpt_step40.pt), longer than the 30 s it gets; …`. */
export function readinessText(r: Readiness, now: number): string {
	const work = workAtRiskS(r, now);
	return `${r.verdict} — ${orderedReasons(r)
		.map(reason => reasonText(reason, work))
		.join('; ')}`;
}
