import type {Job, UnprovenMember, UnprovenReason} from '../core/types.js';
import {schedulerOf} from '../scheduler/kinds.js';
import {printable} from './printable.js';

// A process that only claims to be a rank of a job, in words (ranks/job-proof.ts decides; this only says it).

const WHY: Record<Exclude<UnprovenReason, 'not-in-step'>, string> = {
	'env-only': 'only its environment names it (no launcher or shell session in common with its ranks)',
	orphan: 'only its environment names it (its parent is PID 1: its launcher is gone, or it was started detached)',
};

/** Why, for a claim on job `jobId`: a step's claim names the step's daemon of the scheduler its id is of (`KIND:J.S`). */
function why(reason: UnprovenReason, jobId: string): string {
	if (reason !== 'not-in-step') return WHY[reason];
	const daemon = schedulerOf({scheduler: jobId.slice(0, jobId.indexOf(':'))})?.stepDaemon.comm ?? 'daemon';
	return `not under the step's ${daemon} nor in its cgroup`;
}

/** `pid 4711 (rank 1) claims job rdzv:127.0.0.9:29999, not proven: … — never signalled`. */
export function unprovenText(member: UnprovenMember, job: Pick<Job, 'id'>): string {
	const rank = member.rank === null ? '' : ` (rank ${member.rank})`;
	return `pid ${member.pid}${rank} claims job ${printable(job.id)}, not proven: ${why(member.membership.reason, job.id)} — never signalled`;
}
