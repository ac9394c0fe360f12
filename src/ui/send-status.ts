import type {SaveOutcome} from '../checkpoints/save-attribution.js';
import type {ExitStatus} from '../core/types.js';
import {jobExitWords} from '../format/events.js';
import {printable} from '../format/printable.js';
import {localTime} from '../format/time.js';
import type {SendResult} from '../ranks/send.js';
import type {SignalName} from '../ranks/signals.js';
import type {SignalAction} from '../session/actions.js';
import type {SaveStatus} from './panes/CheckpointsPane.js';

// The words of a send and of what came of it: the result box's title and the checkpoints pane's status line,
// from the send to the checkpoint (or its absence, or the job's exit). Pure, for the reducer.

/** Whether the send's save is watched: only in RUN_DIR, and only when RUN_DIR is the target job's. */
export type SaveWatch = 'watching' | 'not-this-job' | 'no-run-dir';

/** `SIGUSR1 (save)`, `SIGTERM (emergency checkpoint)`. */
export function signalWord(action: SignalAction, signal: SignalName): string {
	return `${signal} (${action === 'save' ? 'save' : 'emergency checkpoint'})`;
}

/** `SIGUSR1 (save) to job torchrun:4242: sent 3, refused 1`. */
export function outcomeTitle(
	action: SignalAction,
	signal: SignalName,
	job: string,
	results: readonly SendResult[],
): string {
	const counts = new Map<string, number>();
	for (const r of results) counts.set(r.outcome, (counts.get(r.outcome) ?? 0) + 1);
	const parts = [...counts].map(([outcome, n]) => `${outcome} ${n}`);
	return `${signalWord(action, signal)} to job ${printable(job)}: ${parts.join(', ')}`;
}

/** Right after a send that reached a rank: waiting for its checkpoint, or why none is waited for. */
export function sentStatus(signal: SignalName, job: string, sentAt: number, watch: SaveWatch): SaveStatus {
	// The time of day only: the status is about the last send, and the line must fit beside the level word.
	const sent = `${signal} to job ${printable(job)} sent ${localTime(sentAt).slice(11)}`;
	if (watch === 'watching') return {text: `waiting for checkpoint… (${sent})`, level: 'ok'};
	if (watch === 'not-this-job') return {text: `${sent}; save not watched: RUN_DIR is not this job's`, level: 'warn'};
	return {text: `${sent}; no RUN_DIR given, so no checkpoint to wait for`, level: 'warn'};
}

/** What the save watch saw: the checkpoint (attributed when of the kind asked for, else `note` says why it may not be the one), or none within the timeout (null). */
export interface SaveFinished {
	readonly signal: SignalName;
	readonly checkpoint: string | null;
	readonly attributed: boolean;
	readonly note: string | null;
	readonly seconds: number;
	readonly timeoutS: number;
	/** The checkpoint's write time from its files (first file's birth to last write); null: not measured. */
	readonly writeS?: number | null;
}

/** What the save watch saw, as the reducer takes it: `outcome` of a send made at `sentAt`, `now` the time it came. */
export function saveFinished(
	signal: SignalName,
	sentAt: number,
	outcome: SaveOutcome,
	timeoutS: number,
	now = Date.now(),
): {readonly type: 'save-finished'; readonly sentAt: number} & SaveFinished {
	return {
		type: 'save-finished',
		sentAt,
		signal,
		checkpoint: outcome.checkpoint?.name ?? null,
		attributed: outcome.attributed,
		note: outcome.note,
		seconds: Math.max(0, Math.round((now - sentAt) / 100) / 10),
		timeoutS,
		writeS: outcome.checkpoint?.writeS ?? null,
	};
}

/** `saved NAME in N s`; a checkpoint that may not be the one asked for says why; none is critical. */
export function saveFinishedStatus(event: SaveFinished): SaveStatus {
	const {checkpoint, seconds} = event;
	if (checkpoint === null)
		return {
			text: `no new checkpoint ${event.timeoutS} s after ${event.signal}: check the job's log`,
			level: 'critical',
		};
	// A checkpoint's name is the file system's, and its note may quote one: shown, never obeyed.
	const name = printable(checkpoint);
	if (event.attributed) return {text: `saved ${name} in ${seconds} s`, level: 'ok'};
	return {text: `${name} in ${seconds} s${event.note ? ` — ${printable(event.note)}` : ''}`, level: 'warn'};
}

/**
 * A drill's save (d): `NAME complete 3.1 s after the signal, written in 3.0 s`; the pane puts the job's verdict before
 * it and its lead after (`drill ready: … ; --grace gives 30.0 s`), from the snapshot, which judges the fresh save.
 */
export function drillStatus(event: SaveFinished, job: string): SaveStatus {
	if (event.checkpoint === null)
		return {...saveFinishedStatus(event), text: `drill: ${saveFinishedStatus(event).text}`};
	const written = event.writeS == null ? 'write time not measured' : `written in ${event.writeS.toFixed(1)} s`;
	const text = `${printable(event.checkpoint)} complete ${event.seconds.toFixed(1)} s after the signal, ${written}`;
	const note = event.attributed || !event.note ? '' : ` — ${printable(event.note)}`;
	return {text: `${text}${note}`, level: event.attributed ? 'ok' : 'warn', drillJob: job};
}

/** An emergency signal's job ended before its checkpoint was seen. Most telling first: the pane cuts the line. */
export function jobExitedStatus(job: string, signal: SignalName, exit: ExitStatus | null): SaveStatus {
	return {
		text: `no emergency checkpoint seen: job ${printable(job)} exited after ${signal} (${jobExitWords(exit)})`,
		level: 'warn',
	};
}
