import type {DemoJob} from '../../src/demo/job.js';

/**
 * Rank `rank`'s answer to `signal`: its "rank N got SIGNAL" line, or the launcher's line saying that the rank died or
 * exited (so a rank killed earlier fails the caller's assertion at once instead of timing out).
 */
export function answer(job: DemoJob, rank: number, signal: NodeJS.Signals, timeoutMs = 10_000): Promise<string> {
	return job.waitForLine(
		new RegExp(`^rank ${rank} got ${signal}$|^launcher: rank ${rank} pid \\d+ (?:was killed|exited)`),
		timeoutMs,
	);
}

/**
 * The later event for "nothing was sent" checks: SIGTERM to the launcher, which forwards it to every rank, then each
 * rank's answer (in rank order). A rank prints the signals it received in the order its handler saw them, after its
 * next step, and Python runs the handlers of signals that arrived together in signal-number order (SIGUSR1 = 10
 * before SIGTERM = 15): once every rank has answered, job.output() holds a "got" line for every SIGUSR1 sent to a rank
 * before this call, or the launcher's line for a rank that such a signal killed. The job is ending afterwards.
 */
export async function endJob(job: DemoJob, ranks: number): Promise<string[]> {
	process.kill(job.launcherPid, 'SIGTERM');
	return Promise.all(Array.from({length: ranks}, (_, rank) => answer(job, rank, 'SIGTERM')));
}

/** What endJob resolves with when every rank handled the SIGTERM. */
export const allGotSigterm = (ranks: number): string[] =>
	Array.from({length: ranks}, (_, rank) => `rank ${rank} got SIGTERM`);
