import type {ExitStatus, Level} from '../core/types.js';

// How a process or a job ended, in words and as a level: the same in the events the core makes (the
// alerts pane, the headless lines, --json's text) so that "exit 99" reads alike wherever it is met.

/** The requeue convention (traintop_signals.py, the demo job): SIGTERM → save an emergency checkpoint → exit 99. */
const REQUEUE_EXIT_CODE = 99;

/** A rank's or launcher's end as the rest of a sentence: `exited with code 1`, `was killed by SIGKILL`. */
export function exitWords(exit: ExitStatus | null): string {
	if (exit === null) return 'is gone (its exit status was not readable: its parent reaped it first)';
	if (exit.signal !== null) return `was killed by ${exit.signal}`;
	if (exit.code === REQUEUE_EXIT_CODE) return `exited with code ${exit.code} — saved for requeue`;
	if (exit.code !== null) return `exited with code ${exit.code}`;
	return 'is gone (its exit status is unknown)';
}

/** A job's end after "ended, ": `exit 0`, `exit 99 — saved for requeue`, `killed by SIGKILL`. */
export function jobExitWords(exit: ExitStatus | null): string {
	if (exit?.signal) return `killed by ${exit.signal}`;
	if (exit?.code === REQUEUE_EXIT_CODE) return `exit ${exit.code} — saved for requeue`;
	if (exit?.code !== null && exit?.code !== undefined) return `exit ${exit.code}`;
	return 'exit status unknown';
}

/**
 * ok for a clean exit, warn for an unknown one and for the requeue exit (planned, yet the job is no longer
 * running), critical for any other code or a signal.
 */
export function exitLevel(exit: ExitStatus | null): Level {
	if (exit === null || (exit.code === null && exit.signal === null)) return 'warn';
	if (exit.signal !== null) return 'critical';
	if (exit.code === 0) return 'ok';
	return exit.code === REQUEUE_EXIT_CODE ? 'warn' : 'critical';
}

/** `rank 2 (pid 4242)`; `rank ? (pid 4242)` for a --match process without rank variables. */
export function rankWords(rank: {readonly rank: number | null; readonly pid: number}): string {
	return `rank ${rank.rank ?? '?'} (pid ${rank.pid})`;
}
