import type {SignalState} from '../core/types.js';
import type {ProcStatus} from '../system/procfs.js';
import {
	signalNumber,
	stopsByDefault,
	terminatesByDefault,
	WATCHED_SIGNALS,
	type SignalName,
	type WatchedSignal,
} from './signals.js';

export type Disposition = SignalState['disposition'];

export type SignalStates = Readonly<Record<WatchedSignal, SignalState>>;

function bit(mask: bigint, signal: SignalName): boolean {
	return ((mask >> BigInt(signalNumber(signal) - 1)) & 1n) === 1n;
}

export function signalState(status: ProcStatus, signal: SignalName): SignalState {
	const disposition: Disposition = bit(status.sigCgt, signal)
		? 'handled'
		: bit(status.sigIgn, signal)
			? 'ignored'
			: 'default';
	return {
		disposition,
		blocked: bit(status.sigBlk, signal),
		pending: bit(status.sigPnd, signal) || bit(status.shdPnd, signal),
		terminatesByDefault: terminatesByDefault(signal),
	};
}

export function signalStates(status: ProcStatus): SignalStates {
	return Object.fromEntries(WATCHED_SIGNALS.map(signal => [signal, signalState(status, signal)])) as Record<
		WatchedSignal,
		SignalState
	>;
}

/** Would this signal kill the process outright: no handler, not ignored, and a terminating default action. */
export function wouldTerminate(state: SignalState): boolean {
	return state.disposition === 'default' && state.terminatesByDefault;
}

/**
 * Would this signal stop the process until a SIGCONT: SIGSTOP always (it cannot be handled or ignored, so its
 * disposition always reads `default`), SIGTSTP/SIGTTIN/SIGTTOU without a handler. A stopped rank hangs its job.
 */
export function wouldStop(signal: SignalName, state: Pick<SignalState, 'disposition'>): boolean {
	return state.disposition === 'default' && stopsByDefault(signal);
}
