import type {SignalState} from '../core/types.js';

// How a rank's handling of one signal reads, the same in `traintop ranks` and the TUI's ranks pane:
// short enough for a column per signal, with the legend to explain the marks once.

/** ✓ handled · ign ignored · ✗ default that kills · - default that does not kill; +B blocked, +P pending. */
export function signalMark(state: SignalState): string {
	const base =
		state.disposition === 'handled'
			? '✓'
			: state.disposition === 'ignored'
				? 'ign'
				: state.terminatesByDefault
					? '✗'
					: '-';
	return `${base}${state.blocked ? 'B' : ''}${state.pending ? 'P' : ''}`;
}

export const SIGNAL_LEGEND =
	'✓ handled · ✗ no handler: the signal kills · ign ignored · - no handler, harmless · B blocked · P pending';

/** `SIGTERM` → `TERM`: the column headers and cells have no room for the prefix every signal shares. */
export function signalName(signal: string): string {
	return signal.replace(/^SIG/, '');
}
