import type {TuiStore} from '../../src/ui/tui-session.js';

/** A TuiStore's history reads for a scripted session with none: the charts show empty windows. */
export const NO_HISTORY: Omit<TuiStore, 'subscribe' | 'getSnapshot'> = {
	getHistory: () => [],
	getSeries: () => [],
	getMarkers: () => [],
	getRankHistory: () => [],
	startedAt: null,
};
