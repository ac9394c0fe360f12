import type {Marker} from '../core/markers.js';
import type {HistoryPoint} from '../core/monitor.js';
import type {RankSample} from '../core/rank-history.js';
import type {SessionActions} from '../session/actions.js';
import type {SnapshotStore} from './hooks/use-snapshot.js';
import type {ObservableValue} from './hooks/use-value.js';

// What the TUI reads of a session (session/session.ts builds the real one): the snapshots, the
// memory log's trouble, the actions. Nothing here starts or stops anything.

export interface TuiStore extends SnapshotStore {
	/** The newest `limit` values of a metric, oldest first (Monitor.getHistory). */
	getHistory(metric: string, limit: number): readonly HistoryPoint[];
	/** A metric's points from `from` to `to`, at most `bins`, for the history charts (Monitor.getSeries). */
	getSeries(metric: string, from: number, to: number, bins: number): readonly HistoryPoint[];
	/** Saves, alerts and exits from `from` on (Monitor.getMarkers). */
	getMarkers(from: number): readonly Marker[];
	/** A rank's RSS and CPU per scan (Monitor.getRankHistory). */
	getRankHistory(pid: number, startTime: number): readonly RankSample[];
	/** Epoch ms of the first sample; null before it. */
	readonly startedAt: number | null;
}

export interface TuiSession {
	readonly host: string;
	/** --readonly: no signal keys at all. */
	readonly readonly: boolean;
	readonly monitor: TuiStore;
	readonly recorder: {readonly trouble: ObservableValue<string | null>};
	readonly actions: SessionActions;
	/** Starts sampling (the TUI starts it once its screen is up). */
	start(): void;
}
