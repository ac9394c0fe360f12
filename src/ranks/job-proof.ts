import type {MembershipProof, UnprovenReason} from '../core/types.js';
import {taskFromEnv, taskSchedulers} from '../scheduler/kinds.js';
import type {TaskStep} from '../scheduler/task.js';
import {canBeLauncher, isReaper, isShell} from './programs.js';
import type {ProcessFacts} from './process-facts.js';

// What proves that a rank belongs to a job. Environment variables prove nothing: any process of the user can be
// started with a job's MASTER_ADDR, TORCHELASTIC_RUN_ID or its scheduler's job id, and a job-scoped signal would then
// reach it. What a stranger cannot set is where the process sits: under the launcher that started the job's ranks,
// under the scheduler step's daemon (root's) or in the step's cgroup, or started by the same shell in the same session.

export interface GroupContext {
	readonly byPid: ReadonlyMap<number, ProcessFacts>;
	/** Parent, grandparent, … of a pid. */
	ancestors(pid: number): readonly number[];
	/** Pids that are ranks or workers of ranks: never a launcher. */
	readonly isCandidate: ReadonlySet<number>;
	readonly self: {readonly pid: number; readonly uid: number};
	/** /proc/PID/cgroup's text, read only for a scheduler's task no step daemon is seen above; null when unreadable. */
	readonly cgroupOf?: (pid: number) => string | null;
}

/** An ancestor the user may see as the job's launcher: theirs, not a shell or a scheduler's program, not traintop's ancestor. */
export function usableLauncher(pid: number | undefined, context: GroupContext): ProcessFacts | null {
	const launcher = pid === undefined ? undefined : context.byPid.get(pid);
	if (!launcher || launcher.pid <= 1 || launcher.uid !== context.self.uid) return null;
	if (launcher.pid === context.self.pid || context.ancestors(context.self.pid).includes(launcher.pid)) return null;
	return canBeLauncher(launcher) ? launcher : null;
}

/** The nearest ancestor of `pid` that is not a rank or a worker. */
export function nearestNonRank(pid: number, context: GroupContext): number | undefined {
	return context.ancestors(pid).find(ancestor => !context.isCandidate.has(ancestor));
}

/** What ties a rank to the others started the same way: the launcher it descends from, or its shell and session. */
export interface Anchor {
	readonly key: string;
	readonly launcher: ProcessFacts | null;
	readonly proof: MembershipProof;
}

/**
 * The launcher above the rank (the nearest ancestor that is not a rank), or the shell that started it in the same
 * session (hand-started DDP ranks: `RANK=0 python ddp.py & RANK=1 python ddp.py &`). null for an orphan (parent PID 1
 * or a reaper: its launcher is gone, or it was started detached) and for a rank under anything else.
 */
export function anchorOf(process: ProcessFacts, context: GroupContext): Anchor | null {
	const parentPid = nearestNonRank(process.pid, context);
	const launcher = usableLauncher(parentPid, context);
	if (launcher) return {key: `launcher ${launcher.pid}`, launcher, proof: 'launcher-tree'};
	const parent = parentPid === undefined ? undefined : context.byPid.get(parentPid);
	if (!parent || parent.pid <= 1 || parent.uid !== context.self.uid || !isShell(parent)) return null;
	// setsid (a new session) under the same shell is not the same start: the session is part of the proof.
	return {key: `shell ${parent.pid} session ${process.session ?? '?'}`, launcher: null, proof: 'shell-session'};
}

/** Why a rank with no anchor is not proven: an orphan, or a rank under something that ties nothing together. */
export function unanchoredReason(process: ProcessFacts, context: GroupContext): UnprovenReason {
	const parentPid = nearestNonRank(process.pid, context);
	const parent = parentPid === undefined ? undefined : context.byPid.get(parentPid);
	return !parent || parent.pid <= 1 || isReaper(parent) ? 'orphan' : 'env-only';
}

/** The job and step a task's environment names, and its scheduler; null: no scheduler's task. */
export function claimedStep(env: ReadonlyMap<string, string> | null): (TaskStep & {readonly scheduler: string}) | null {
	const task = env === null ? null : taskFromEnv(env);
	return task && {scheduler: task.scheduler, job: task.jobId, step: task.stepId};
}

/**
 * Is the task in the scheduler's job and step its environment names? The nearest step daemon above it (root's: the
 * scheduler's node daemon runs it) must be that step's, else its cgroup must be that step's. A step id the
 * environment leaves out (a batch script's own processes) accepts any step of the job.
 */
export function inClaimedStep(process: ProcessFacts, context: GroupContext): boolean {
	const claim = claimedStep(process.env);
	const scheduler = claim && taskSchedulers().find(one => one.kind === claim.scheduler);
	if (!claim || !scheduler) return false;
	const fits = (found: TaskStep | null) =>
		found !== null && found.job === claim.job && (claim.step === null || found.step === claim.step);
	const daemon = scheduler.stepDaemon;
	for (const pid of context.ancestors(process.pid)) {
		const ancestor = context.byPid.get(pid);
		if (!ancestor) break;
		const title = daemon.step(ancestor.argv.join(' '));
		if (title === null && ancestor.comm !== daemon.comm) continue;
		// The first step daemon above decides: a task of another step is not in this one.
		if (ancestor.uid === 0 && fits(title)) return true;
		break;
	}
	const cgroup = context.cgroupOf?.(process.pid) ?? null;
	return cgroup !== null && fits(scheduler.cgroupStep(cgroup));
}
