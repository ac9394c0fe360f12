import type {Marker} from '../core/markers.js';
import type {MetricId, Snapshot} from '../core/types.js';
import type {Series} from './history/chart-specs.js';
import type {HistoryWindow} from './history/window.js';
import type {SaveStatus} from './panes/save-status.js';
import type {RankSort} from './rank-sort.js';

/** Everything the panes show, gathered once per frame by the app: each pane picks its own props from it. */
export interface ScreenData {
	readonly snapshot: Snapshot;
	/** Host name for the memory pane's title. */
	readonly host: string;
	/** Recent percents per metric, oldest first, for the sparklines. */
	readonly history: Readonly<Record<MetricId, readonly number[]>>;
	/** Index of the selected rank among all ranks, job by job (job headers are not rows). */
	readonly cursor: number;
	/** PIDs of the ranks marked as targets, all of one job. */
	readonly marked: ReadonlySet<number>;
	/** The last save request's progress, under the checkpoints pane's header. */
	readonly saveStatus: SaveStatus | null;
	/** The ranks table's order (the snapshot's ranks are already in it); its title says so. */
	readonly sort?: RankSort;
	/** The history charts' window and what falls in it; absent: no history pane. */
	readonly charts?: ChartHistory;
	/** Alerts pane entries skipped from the newest (`[` `]`); absent: 0. */
	readonly alertsScroll?: number;
	/** The signals the keys send (save, then emergency): the ranks pane keeps their marks visible when narrow. */
	readonly actionSignals: readonly string[];
}

/** The Monitor's history over the charts' window, read once per frame. */
export interface ChartHistory {
	readonly window: HistoryWindow;
	/** Epoch ms at the charts' left and right edges. */
	readonly from: number;
	readonly to: number;
	/** Each metric's points from `from` on. */
	readonly series: Series;
	readonly markers: readonly Marker[];
}
