import type {Job, RankProcess, SignalState} from '../core/types.js';
import type {ProcReader} from '../system/procfs.js';
import {signalState, wouldStop, wouldTerminate} from './dispositions.js';
import {taskFromEnv} from '../scheduler/kinds.js';
import {isStepForwarder} from './programs.js';
import {type SignalName, stopsByDefault} from './signals.js';

// The only code in traintop that sends a signal. Every safety rule for signals (docs/jobs-and-signals.md,
// "Sending signals safely"; docs/architecture.md names where each is enforced) is checked here, per target,
// immediately before kill(2):
// - only the discovered ranks of ONE job are targets (the request names the job, not a set of processes);
//   never PID <= 1, never traintop itself, never another user's process;
// - identity is (pid, start time): re-read just before kill, and a mismatch sends nothing (`gone`);
// - a signal whose disposition is `default` and whose default action terminates is refused unless forced;
// - so is one that would stop the rank (SIGSTOP always: it cannot be handled): a stopped rank hangs its job;
// - so is a handled signal to a rank that is stopped (it would act only at some later SIGCONT); an ignored
//   signal is never sent (it would do nothing), so neither reads as an action that happened (exit 3).
//   A view never forces (session/actions.ts), so the TUI never stops a rank.
// The one exception to "only ranks" is a scheduler step's launcher as its forwarder (sendToForwarder), under the same
// identity and ownership checks.

export type Outcome = 'sent' | 'refused' | 'gone' | 'denied';

export interface SendResult {
	readonly rank: number | null;
	readonly pid: number;
	readonly outcome: Outcome;
	/** Why it was not sent, or what to expect when it was (ignored, blocked); null when plain sent. */
	readonly reason: string | null;
}

export interface SendRequest {
	/** The one job whose ranks may be targets: nothing outside it can be one. */
	readonly job: Job;
	/** Rank numbers to target; undefined = every rank. */
	readonly ranks?: readonly number[];
	readonly signal: SignalName;
	/** Send even where the signal would terminate a rank that has no handler. */
	readonly force: boolean;
	readonly proc: ProcReader;
	readonly self?: {readonly pid: number; readonly uid: number};
	/** kill(2); injectable only so that tests can observe the call order. */
	readonly kill?: (pid: number, signal: SignalName) => void;
}

function label(rank: RankProcess): string {
	return rank.rank === null ? `pid ${rank.pid}` : `rank ${rank.rank}`;
}

/** Which of the job's ranks a request names; unknown rank numbers are reported, not ignored. */
export function selectTargets(
	job: Job,
	ranks: readonly number[] | undefined,
): {targets: RankProcess[]; unknown: number[]} {
	if (ranks === undefined) return {targets: [...job.ranks], unknown: []};
	const targets = job.ranks.filter(r => r.rank !== null && ranks.includes(r.rank));
	const unknown = ranks.filter(n => !job.ranks.some(r => r.rank === n));
	return {targets, unknown};
}

/**
 * Synchronous from the /proc re-read to kill(2): no other code of traintop runs in between, so the
 * window for PID reuse is only the kernel's own (traintop does not use pidfd_send_signal, not
 * reachable from Node).
 */
function sendOne(target: RankProcess, request: SendRequest): SendResult {
	const self = request.self ?? {pid: process.pid, uid: process.getuid?.() ?? -1};
	const result = (outcome: Outcome, reason: string | null): SendResult => ({
		rank: target.rank,
		pid: target.pid,
		outcome,
		reason,
	});
	const who = label(target);

	if (target.pid <= 1) return result('refused', `PID ${target.pid} is never a target`);
	if (target.pid === self.pid) return result('refused', 'traintop never signals itself');

	// Identity, ownership and disposition as they are now, not as they were at the last sample.
	const stat = request.proc.stat(target.pid);
	const status = request.proc.status(target.pid);
	if (!stat || !status) return result('gone', `${who} (pid ${target.pid}) has exited`);
	if (stat.startTime !== target.startTime) {
		return result('gone', `pid ${target.pid} is no longer ${who}: that process exited and the pid was reused`);
	}
	if (status.uid.real !== self.uid) return result('refused', `pid ${target.pid} belongs to another user`);

	const state = signalState(status, request.signal);
	if (wouldTerminate(state) && !request.force) {
		return result(
			'refused',
			`${who} has no handler for ${request.signal}: the signal would terminate it (--force sends it anyway)`,
		);
	}
	const stops = wouldStop(request.signal, state);
	if (stops && !request.force) {
		return result(
			'refused',
			`${request.signal} stops ${who} until it gets SIGCONT, which hangs its job (--force sends it anyway)`,
		);
	}

	// An ignored signal does nothing (SIGCONT excepted: it continues a stopped rank whatever its disposition), so it
	// is not reported as an action that happened; there is nothing for --force to force.
	if (state.disposition === 'ignored' && request.signal !== 'SIGCONT')
		return result('refused', `${who} ignores ${request.signal}: it would have no effect; nothing sent`);
	// A stopped rank keeps a handled signal pending until it is continued: the save would come at some later SIGCONT.
	const waits = waitsWhileStopped(stat.state, request.signal, state);
	if (waits && !request.force) {
		return result(
			'refused',
			`${who} is stopped (state ${stat.state}): ${request.signal} would stay pending and act only once it is continued with SIGCONT (--force queues it anyway)`,
		);
	}

	try {
		(request.kill ?? ((pid, signal) => process.kill(pid, signal)))(target.pid, request.signal);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ESRCH') return result('gone', `${who} (pid ${target.pid}) exited before the signal arrived`);
		if (code === 'EPERM') return result('denied', `not permitted to signal pid ${target.pid} (EPERM)`);
		return result('denied', `kill(${target.pid}, ${request.signal}) failed: ${(error as Error).message}`);
	}
	if (wouldTerminate(state)) return result('sent', `forced: ${who} had no handler, the signal terminates it`);
	if (stops) return result('sent', `forced: ${who} is stopped until it gets SIGCONT`);
	if (waits) return result('sent', `forced: ${who} is stopped: ${request.signal} is pending until it gets SIGCONT`);
	if (state.blocked) return result('sent', `${who} blocks ${request.signal}: it is delivered when unblocked`);
	return result('sent', null);
}

/**
 * Would the signal only wait in a stopped process (/proc state T, or t under a debugger)? A handled (or blocked)
 * signal stays pending until SIGCONT; a fatal one kills it at once, and SIGKILL and SIGCONT act on it as always.
 */
function waitsWhileStopped(procState: string, signal: SignalName, state: SignalState): boolean {
	if (procState !== 'T' && procState !== 't') return false;
	if (signal === 'SIGCONT' || signal === 'SIGKILL' || wouldTerminate(state)) return false;
	return !stopsByDefault(signal);
}

/** Sends the signal to each target in turn; each target's identity is re-read right before its own kill. */
export function sendSignal(request: SendRequest): {results: SendResult[]; unknown: number[]} {
	const {targets, unknown} = selectTargets(request.job, request.ranks);
	return {results: targets.map(target => sendOne(target, request)), unknown};
}

/** A step's launcher on this node (the scheduler's: srun), as found (its identity is re-checked before the kill). */
export interface ForwarderTarget {
	readonly pid: number;
	readonly startTime: number;
	/** Its program's name, for the messages: 'srun'. */
	readonly program: string;
	/** The scheduler's job it must belong to (its environment's task). */
	readonly jobId: string;
	/** `step 3.0` — for the messages. */
	readonly label: string;
}

/**
 * SIGNAL to a step's launcher, which forwards it to every task of the step on every node (isStepForwarder says why its
 * own disposition is not checked). The other rules hold as for a rank: never PID <= 1 or traintop, never another
 * user's process, identity (pid, start time) re-read right before kill(2), and it must still be the job's launcher.
 */
export function sendToForwarder(
	target: ForwarderTarget,
	request: Pick<SendRequest, 'signal' | 'proc' | 'self' | 'kill'>,
): SendResult {
	const self = request.self ?? {pid: process.pid, uid: process.getuid?.() ?? -1};
	const result = (outcome: Outcome, reason: string | null): SendResult => ({
		rank: null,
		pid: target.pid,
		outcome,
		reason,
	});
	const who = `the ${target.program} of ${target.label}`;
	if (target.pid <= 1 || target.pid === self.pid) return result('refused', `PID ${target.pid} is never a target`);
	const stat = request.proc.stat(target.pid);
	const status = request.proc.status(target.pid);
	if (!stat || !status) return result('gone', `${who} (pid ${target.pid}) has exited`);
	if (stat.startTime !== target.startTime) return result('gone', `pid ${target.pid} is no longer ${who}`);
	if (status.uid.real !== self.uid) return result('refused', `pid ${target.pid} belongs to another user`);
	const argv = request.proc.cmdline(target.pid) ?? [];
	const env = request.proc.environ(target.pid);
	const jobId = env ? taskFromEnv(env)?.jobId : undefined;
	if (!isStepForwarder({argv, comm: stat.comm}) || (jobId !== undefined && jobId !== target.jobId)) {
		return result('refused', `pid ${target.pid} is not an ${target.program} of job ${target.jobId}`);
	}
	try {
		(request.kill ?? ((pid, signal) => process.kill(pid, signal)))(target.pid, request.signal);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === 'ESRCH') return result('gone', `${who} (pid ${target.pid}) exited before the signal arrived`);
		return result('denied', `kill(${target.pid}, ${request.signal}) failed: ${(error as Error).message}`);
	}
	return result('sent', `${who} forwards it to every task of the step`);
}
