import type {SignalState} from '../core/types.js';

// How a rank's handling of one signal reads, the same in `traintop ranks` and the TUI's ranks pane:
// short enough for a column per signal, with the legend to explain the marks once.

/** What a rank does with a signal, in four cases: the mark and the words both come from it. */
export type SignalHandling = 'handled' | 'ignored' | 'kills' | 'harmless';

export function signalHandling(state: SignalState): SignalHandling {
	if (state.disposition !== 'default') return state.disposition;
	return state.terminatesByDefault ? 'kills' : 'harmless';
}

const MARK: Readonly<Record<SignalHandling, string>> = {handled: '✓', ignored: 'ign', kills: '✗', harmless: '-'};

/** ✓ handled · ign ignored · ✗ default that kills · - default that does not kill; +B blocked, +P pending. */
export function signalMark(state: SignalState): string {
	return `${MARK[signalHandling(state)]}${state.blocked ? 'B' : ''}${state.pending ? 'P' : ''}`;
}

export const SIGNAL_LEGEND =
	'✓ handled · ✗ no handler: the signal kills · ign ignored · - no handler, harmless · B blocked · P pending';

/** `SIGTERM` → `TERM`: the column headers and cells have no room for the prefix every signal shares. */
export function signalName(signal: string): string {
	return signal.replace(/^SIG/, '');
}
