import type {RankProcess} from '../core/types.js';
import {wouldStop, wouldTerminate} from './dispositions.js';
import type {SendResult} from './send.js';
import type {SignalName} from './signals.js';

// What a rank will do with a signal, said before it is sent: the `signal` command's target list
// and the TUI's confirm box use the same words.

function who(rank: RankProcess): string {
	return `${rank.rank === null ? 'rank ?' : `rank ${rank.rank}`}  pid ${rank.pid}`;
}

/** What one target will do with a signal: whether a send without --force refuses it, and the words. */
export interface RankPreview {
	readonly refused: boolean;
	readonly text: string;
}

/**
 * What each target will do with the signal, from its state at the last scan (it is re-read before
 * sending). `forceHint` says how a refused signal could be sent anyway, where the caller can.
 */
export function rankPreview(
	rank: RankProcess,
	signal: SignalName,
	force: boolean,
	forceHint = '--force sends it',
): RankPreview {
	const refusedUnlessForced = force ? 'sent anyway (--force)' : `will be refused (${forceHint})`;
	const state = rank.signals[signal];
	// SIGSTOP is not among the watched signals, and needs no state: it cannot be handled, so it always stops.
	if (wouldStop(signal, state ?? {disposition: signal === 'SIGSTOP' ? 'default' : 'handled'})) {
		return {refused: !force, text: `${who(rank)}  ${signal} would STOP it until a SIGCONT — ${refusedUnlessForced}`};
	}
	if (!state)
		return {refused: false, text: `${who(rank)}  (state of ${signal} not shown by traintop; checked before sending)`};
	if (wouldTerminate(state)) {
		return {refused: !force, text: `${who(rank)}  NO HANDLER: ${signal} would terminate it — ${refusedUnlessForced}`};
	}
	if (state.disposition === 'ignored' && signal !== 'SIGCONT')
		return {refused: true, text: `${who(rank)}  ignores ${signal}: it would have no effect — will be refused`};
	if (rank.stopped && state.disposition === 'handled' && signal !== 'SIGCONT') {
		const then = force ? 'queued anyway (--force)' : `will be refused (${forceHint})`;
		return {refused: !force, text: `${who(rank)}  STOPPED: ${signal} would wait pending until a SIGCONT — ${then}`};
	}
	const notes = [state.disposition === 'ignored' ? `ignores ${signal}` : `handles ${signal}`];
	if (state.blocked) notes.push('blocked: delivered when unblocked');
	if (state.pending) notes.push(`a ${signal} is already pending`);
	return {refused: false, text: `${who(rank)}  ${notes.join(', ')}`};
}

/** The words of rankPreview alone: the `signal` command's target list. */
export function previewLine(rank: RankProcess, signal: SignalName, force: boolean, forceHint?: string): string {
	return rankPreview(rank, signal, force, forceHint).text;
}

/** What happened to one target. */
export function outcomeLine(result: SendResult): string {
	const rank = result.rank === null ? 'rank ?' : `rank ${result.rank}`;
	return `${rank}  pid ${result.pid}  ${result.outcome}${result.reason ? `: ${result.reason}` : ''}`;
}
