import type {LeadSource, Readiness, ReadinessReason} from '../core/readiness-types.js';
import {formatDuration} from '../format/duration.js';

// FOR THE MERGER: a stand-in, to be replaced by src/format/readiness.ts (the words of the verdict's reasons) once it
// lands: the drill's words for each reason code, short, from the reason's own figures. Nothing here judges.

const s = (seconds: number | undefined): string => (seconds === undefined ? '?' : formatDuration(seconds));

function who(r: ReadinessReason): string {
	const rank = r.rank === null || r.rank === undefined ? 'a rank' : `rank ${r.rank}`;
	return r.pid === undefined ? rank : `${rank} (pid ${r.pid})`;
}

/** Where a lead comes from, in a few words. */
function leadWords(from: LeadSource): string {
	if (from === 'grace') return '--grace';
	if (from === 'scheduler-warning') return "the scheduler's warning";
	return "the scheduler's kill wait";
}

/** One reason in words; `now` counts the work since the last save. */
export function reasonText(r: ReadinessReason, readiness: Readiness, now: number): string {
	const signal = r.signal ?? readiness.signal;
	switch (r.code) {
		case 'no-handler':
			return `${who(r)} has no handler for ${signal}: a preemption kills it unsaved`;
		case 'ignored':
			return `${who(r)} ignores ${signal}: it never saves on it`;
		case 'batch-shell-only':
			return `${signal} goes to the batch shell alone, which has no trap for it: the ranks never see it`;
		case 'shell-trap-no-forward':
			return `the batch shell's trap for ${signal} does not pass it on (it ${r.name ?? 'does something else'})`;
		case 'shell-forwards':
			return `the batch shell's trap passes ${signal} on to the ranks`;
		case 'shell-trap-unreached':
			return `${signal} goes to the steps: the batch shell's trap for it never runs`;
		case 'saves-never-complete':
			return 'checkpoints were started and none completed';
		case 'save-over-lead':
			return `the slowest save took ${s(r.seconds)} (${r.name ?? '?'}), longer than the ${s(r.limitS)} it gets`;
		case 'work-over-limit':
		case 'work-since-save': {
			const since = readiness.lastSaveAt === null ? null : (now - readiness.lastSaveAt) / 1000;
			const work =
				since === null ? 'work since the last save unknown' : `${s(Math.max(0, since))} of work since the last save`;
			return r.limitS === undefined ? work : `${work} (limit ${s(r.limitS)})`;
		}
		case 'launcher-kills':
			return `${r.name ?? 'the launcher'} passes ${signal} on and SIGKILLs ranks still running ${s(r.seconds)} later (${r.source ?? '?'})`;
		case 'launcher-dies':
			return `${r.name ?? 'the launcher'} (pid ${r.pid ?? '?'}) has no handler for ${signal} and dies of it`;
		case 'launcher-exit-code':
			return `${r.name ?? 'the launcher'} reports a failed rank as its own exit ${r.seconds ?? '?'}, whatever the rank's`;
		case 'no-save-seen':
			return 'no save seen yet';
		case 'no-deadline':
			return 'no deadline known: pass --grace';
		case 'no-ranks':
			return r.count === undefined ? 'no ranks seen: their handlers cannot be read' : `${r.count} rank(s) unread`;
		case 'handlers':
			return `every rank handles ${signal} (${r.count ?? '?'})`;
		case 'save-time':
			return `saves take ${s(r.seconds)} (max ${s(r.limitS)} of ${r.count ?? '?'})`;
		case 'lead': {
			// The launcher's own kill bounds the lead where nothing else gives one (torchrun: 30 s after passing it on).
			const kill = readiness.reasons.find(k => k.code === 'launcher-kills' && k.seconds === r.seconds);
			const killWords = kill && `${kill.name ?? 'the launcher'} kills ${s(kill.seconds)} after passing it on`;
			const from = readiness.leadFrom === null ? (killWords ?? 'not known') : leadWords(readiness.leadFrom);
			return `the warning gives ${s(r.seconds)} (${killWords && readiness.leadFrom !== null ? `${from}; ${killWords}` : from})`;
		}
	}
}
