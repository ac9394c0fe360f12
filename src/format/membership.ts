import type {Job, UnprovenMember, UnprovenReason} from '../core/types.js';
import {printable} from './printable.js';

// A process that only claims to be a rank of a job, in words (ranks/job-proof.ts decides; this only says it).

const WHY: Record<UnprovenReason, string> = {
	'env-only': 'only its environment names it (no launcher or shell session in common with its ranks)',
	orphan: 'only its environment names it (its parent is PID 1: its launcher is gone, or it was started detached)',
	'not-in-step': "not under the step's slurmstepd nor in its cgroup",
};

/** `pid 4711 (rank 1) claims job rdzv:127.0.0.9:29999, not proven: … — never signalled`. */
export function unprovenText(member: UnprovenMember, job: Pick<Job, 'id'>): string {
	const rank = member.rank === null ? '' : ` (rank ${member.rank})`;
	return `pid ${member.pid}${rank} claims job ${printable(job.id)}, not proven: ${WHY[member.membership.reason]} — never signalled`;
}
