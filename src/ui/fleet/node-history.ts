import {alertMarker, eventMarker, type Marker} from '../../core/markers.js';
import {type HistoryPoint, MetricHistory} from '../../core/metric-history.js';
import {RankHistory, type RankSample} from '../../core/rank-history.js';
import {RingBuffer} from '../../core/ring-buffer.js';
import type {MetricId, RankSet, Snapshot} from '../../core/types.js';
import type {TuiStore} from '../tui-session.js';

// What a node's own view reads besides its latest snapshot: each metric's history, the saves/alerts/exits that mark
// the charts, each rank's RSS and CPU. The Monitor keeps these for its own node; for a node seen through its agent
// they are kept here, from its snapshots as they arrive, for every node from the start (a node opened later has its
// charts already). Bounded smaller than the Monitor's: 64 nodes of 10 metrics each must stay in the budget.

/** Samples kept as they came: the charts' shortest window (5 minutes) at 1 s. */
const RECENT_POINTS = 300;
/** Buckets for the whole run (coarser as it grows): the "whole run" window. */
const RUN_BUCKETS = 240;
const MARKERS_KEPT = 200;
/** Scans kept per rank for its detail's chart (the rank scan is every 2 s: 5 minutes). */
const RANK_SAMPLES = 150;

/** One node's histories, fed its snapshots in order; read as the one-node TUI reads its Monitor. */
export class NodeHistory implements TuiStore {
	readonly #metrics = new Map<MetricId, MetricHistory>();
	readonly #markers = new RingBuffer<Marker>(MARKERS_KEPT);
	readonly #ranks = new RankHistory(RANK_SAMPLES);
	readonly #listeners = new Set<(snapshot: Snapshot) => void>();
	#latest: Snapshot | null = null;
	#lastRanks: RankSet | null = null;
	#startedAt: number | null = null;

	/** A snapshot of this node (in the node's own clock: its charts read in its time, as its alerts do). */
	add(snapshot: Snapshot): void {
		this.#startedAt ??= snapshot.time;
		for (const [metric, status] of Object.entries(snapshot.metrics)) {
			// A stale status is the last reading carried on: not a new sample.
			if (status.value === null || status.stale) continue;
			let history = this.#metrics.get(metric);
			if (!history) {
				history = new MetricHistory({recent: RECENT_POINTS, buckets: RUN_BUCKETS});
				this.#metrics.set(metric, history);
			}
			history.push(snapshot.time, status.value);
		}
		for (const marker of [...snapshot.newAlerts.map(alertMarker), ...snapshot.events.map(eventMarker)])
			if (marker) this.#markers.push(marker);
		// The ranks are carried over unchanged between scans (the agent sends them when they change): one sample a scan.
		if (snapshot.ranks && snapshot.ranks !== this.#lastRanks) this.#ranks.record(snapshot.ranks);
		this.#lastRanks = snapshot.ranks;
		this.#latest = snapshot;
		for (const listener of this.#listeners) listener(snapshot);
	}

	subscribe(listener: (snapshot: Snapshot) => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	getSnapshot(): Snapshot | null {
		return this.#latest;
	}

	getHistory(metric: MetricId, limit: number): readonly HistoryPoint[] {
		return this.#metrics.get(metric)?.latest(limit) ?? [];
	}

	getSeries(metric: MetricId, from: number, to: number, bins: number): readonly HistoryPoint[] {
		return this.#metrics.get(metric)?.series(from, to, bins) ?? [];
	}

	getMarkers(from: number): readonly Marker[] {
		return this.#markers.toArray().filter(marker => marker.time >= from);
	}

	getRankHistory(pid: number, startTime: number): readonly RankSample[] {
		return this.#ranks.of(pid, startTime);
	}

	get startedAt(): number | null {
		return this.#startedAt;
	}
}

/** The fleet as the histories need it: each node's snapshot as it arrives (fleet/fleet.ts's onSnapshot). */
export interface SnapshotSource {
	onSnapshot(listener: (node: string, snapshot: Snapshot) => void): () => void;
}

/** Every node's history, fed from the fleet from the moment it is made. */
export class FleetHistories {
	readonly #nodes = new Map<string, NodeHistory>();
	readonly #off: () => void;

	constructor(source: SnapshotSource) {
		this.#off = source.onSnapshot((node, snapshot) => this.of(node).add(snapshot));
	}

	/** The node's history (empty until its first snapshot). */
	of(node: string): NodeHistory {
		let history = this.#nodes.get(node);
		if (!history) {
			history = new NodeHistory();
			this.#nodes.set(node, history);
		}
		return history;
	}

	close(): void {
		this.#off();
	}
}
