import {errorMessage} from './errors.js';
import {JobEventLog} from './event-log.js';
import {LevelTracker, type ThresholdRule} from './thresholds.js';
import type {MonitorOptions} from './monitor-options.js';
import {alertMarker, eventMarker, type Marker} from './markers.js';
import {type HistoryPoint, MetricHistory} from './metric-history.js';
import {RankHistory, type RankSample} from './rank-history.js';
import {RingBuffer} from './ring-buffer.js';
import {gpuMetricId} from './metric-id.js';
import {ramAgainstLimit} from './ram-limit.js';
import {deadlineRisk} from './deadline-risk.js';
import {NO_READINESS_OPTIONS, readinessOfJobs} from './job-readiness.js';
import {DEFAULT_HANG_AFTER_S, ProgressJudge} from './progress.js';
import type {RankWaits} from './progress-types.js';
import type {JobMemory} from './memory-types.js';
import {progressEvents} from './progress-events.js';
import {GpuHealthJudge} from './gpu-health-judge.js';
import {hostShort} from './host-short.js';
import {memoryEvents} from './memory-events.js';
import {MemoryTrendJudge, ramLineOf, startTimesOf} from './memory-trend.js';
import {NO_GPU_PROCESSES} from './types.js';
import type {Alert, GpuProcessTable, HostMemory, MetricId, MetricStatus, RankSet, Snapshot} from './types.js';

export type {MonitorOptions, MonitorSources, MonitorThresholds} from './monitor-options.js';
export type {HistoryPoint} from './metric-history.js';

export type SnapshotListener = (snapshot: Snapshot) => void;

/**
 * The one clock of traintop: on every tick it reads each source, judges every metric against its
 * threshold, keeps bounded history and publishes an immutable Snapshot to its subscribers.
 * It never prints and never exits; views decide what to do with snapshots.
 */
export class Monitor {
	readonly #options: MonitorOptions;
	readonly #now: () => number;
	readonly #levels = new LevelTracker();
	readonly #history = new Map<MetricId, MetricHistory>();
	readonly #markers: RingBuffer<Marker>;
	readonly #rankHistory = new RankHistory();
	readonly #peaks = new Map<MetricId, number>();
	readonly #listeners = new Set<SnapshotListener>();
	#recentAlerts: Alert[] = [];
	readonly #events: JobEventLog;
	#snapshot: Snapshot | null = null;
	#lastMemory: HostMemory | null = null;
	#ranks: RankSet | null = null;
	#ranksError: string | null = null;
	#ranksReadAt = -Infinity;
	#waits: RankWaits | null = null;
	#jobMemory: readonly JobMemory[] = [];
	readonly #progress: ProgressJudge;
	readonly #gpuHealth = new GpuHealthJudge();
	/** Each rank's and worker's memory trend: a leak named by rank (core/memory-trend.ts). */
	readonly #memoryTrends = new MemoryTrendJudge();
	#tickCount = 0;
	#timer: NodeJS.Timeout | null = null;
	#unsubscribe: (() => void)[] = [];
	#inFlight: Promise<Snapshot> | null = null;
	#startedAt: number | null = null;

	constructor(options: MonitorOptions) {
		this.#options = options;
		this.#now = options.now ?? Date.now;
		this.#events = new JobEventLog(options.recentEventLimit ?? 50);
		this.#markers = new RingBuffer(options.markerLimit ?? 1000);
		this.#progress = new ProgressJudge(options.progress ?? {hangAfterS: DEFAULT_HANG_AFTER_S});
	}

	getSnapshot(): Snapshot | null {
		return this.#snapshot;
	}

	/** Oldest first (the newest `limit` when given); empty for a metric never seen. */
	getHistory(metric: MetricId, limit?: number): readonly HistoryPoint[] {
		return this.#history.get(metric)?.latest(limit) ?? [];
	}

	/**
	 * A metric's points from `from` to `to` (epoch ms), oldest first, at most `bins` (each its share's highest):
	 * as sampled, or coarser beyond the last hour.
	 */
	getSeries(metric: MetricId, from: number, to: number, bins?: number): readonly HistoryPoint[] {
		return this.#history.get(metric)?.series(from, to, bins) ?? [];
	}

	/** Saves, alerts and exits from `from` on, oldest first (the newest `markerLimit` of the run). */
	getMarkers(from: number): readonly Marker[] {
		return this.#markers.toArray().filter(m => m.time >= from);
	}

	/** A rank's RSS and CPU at each rank scan, oldest first. */
	getRankHistory(pid: number, startTime: number): readonly RankSample[] {
		return this.#rankHistory.of(pid, startTime);
	}

	/** Epoch ms of the first sample; null before it. */
	get startedAt(): number | null {
		return this.#startedAt;
	}

	subscribe(listener: SnapshotListener): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	/** Sample on the interval. The first tick runs at once so views have data without waiting. */
	start(): void {
		if (this.#timer) return;
		void this.#tickSafely();
		this.#timer = setInterval(() => void this.#tickSafely(), this.#options.intervalMs);
		// Push sources publish at once (an extra tick): a new checkpoint or scheduler reading need not wait for the interval.
		const {checkpoints, scheduler} = this.#options.sources;
		for (const off of [
			checkpoints?.subscribe?.(() => void this.#tickSafely()),
			scheduler?.onChange?.(() => void this.#tickSafely()),
		])
			if (off) this.#unsubscribe.push(off);
	}

	stop(): void {
		if (this.#timer) clearInterval(this.#timer);
		this.#timer = null;
		for (const off of this.#unsubscribe.splice(0)) off();
	}

	/**
	 * One sampling round. Concurrent calls share the round in flight: a slow read (a stalled
	 * /proc on a loaded node) must not pile up ticks behind it.
	 */
	tick(): Promise<Snapshot> {
		this.#inFlight ??= this.#runTick().finally(() => {
			this.#inFlight = null;
		});
		return this.#inFlight;
	}

	async #tickSafely(): Promise<void> {
		if (this.#inFlight) return;
		try {
			await this.tick();
		} catch {
			// A listener threw; the clock keeps going rather than dying with it.
		}
	}

	async #runTick(): Promise<Snapshot> {
		const {sources} = this.#options;
		let memoryError: string | null = null;
		try {
			this.#lastMemory = await sources.readMemory(this.#ranks);
		} catch (error) {
			memoryError = errorMessage(error);
		}
		const gpu = sources.gpu.getState();
		const gpuProcesses = gpu.status === 'ok' ? sources.gpu.getProcesses() : NO_GPU_PROCESSES;
		await this.#readRanks(gpuProcesses);
		const time = this.#now();
		this.#startedAt ??= time;

		const newAlerts: Alert[] = [];
		const metrics: Record<MetricId, MetricStatus> = {};
		const judge = (metric: MetricId, value: number | null, rule: ThresholdRule): void => {
			const alert = this.#levels.update(metric, value, rule, time);
			if (alert) newAlerts.push(alert);
			if (value !== null) {
				this.#record(metric, time, value);
			}
			metrics[metric] = {
				value,
				level: this.#levels.level(metric),
				peak: this.#peaks.get(metric) ?? null,
				threshold: rule.critical,
			};
		};

		const {thresholds} = this.#options;
		// Only a fresh reading is judged: a failed read must not re-raise or clear levels on stale data.
		// The snapshot still carries the last reading, so it carries the last judgement with it, marked.
		if (this.#lastMemory && memoryError === null) {
			// Against the job's cgroup limit when it has one: where the OOM killer acts.
			judge('ram', ramAgainstLimit(this.#lastMemory).percent, thresholds.ram);
			if (this.#lastMemory.swap) judge('swap', this.#lastMemory.swap.percent, thresholds.swap);
		} else {
			for (const metric of ['ram', 'swap'] as const) {
				const last = this.#snapshot?.metrics[metric];
				if (last) metrics[metric] = last.stale ? last : {...last, stale: true};
			}
		}
		if (gpu.status === 'ok') {
			for (const reading of gpu.gpus) {
				const own = reading.uuid === null ? undefined : thresholds.gpuByUuid?.get(reading.uuid);
				judge(gpuMetricId(reading.index), reading.memoryPercent, own ?? thresholds.gpu);
			}
		}

		const limit = this.#options.recentAlertLimit ?? 50;
		if (newAlerts.length > 0) {
			this.#recentAlerts = [...this.#recentAlerts, ...newAlerts].slice(-limit);
		}

		// Each job's progress, judged at each rank scan (the same array in between: a slow part of the agent stream).
		const ncclRas = sources.ncclRas?.current() ?? null;
		const progress = this.#progress.judge({
			ranks: this.#ranks,
			waits: this.#waits,
			steps: sources.readSteps?.(sources.checkpoints?.getIndex() ?? null) ?? [],
			gpu,
			gpuProcesses,
			ras: ncclRas,
			now: time,
		});
		// Events when a new rank sample or a changed index came in; the index's OVERDUE as judged with the ranks.
		// The trends take a point per rank scan (a new array from the reader) and keep the same array in between.
		const ramLine = ramLineOf(this.#lastMemory, thresholds.ram.critical);
		const ranks = this.#ranks;
		const jobMemory = this.#memoryTrends.judge(this.#jobMemory, ramLine, time, startTimesOf(ranks), ranks?.sampledAt);
		const scheduler = sources.scheduler?.current() ?? null;
		const life = this.#events.update(
			this.#ranks,
			sources.checkpoints?.getIndex() ?? null,
			time,
			{state: scheduler, endWatch: sources.scheduler?.endWatch ?? null},
			[
				...progressEvents(this.#snapshot?.progress ?? null, progress, time),
				...this.#gpuHealth.judge(gpu, time),
				...memoryEvents(this.#snapshot?.jobMemory ?? null, jobMemory, time),
			],
		);
		if (life.readSchedulerNow) sources.scheduler?.refresh?.();
		for (const marker of [...newAlerts.map(alertMarker), ...life.events.map(eventMarker)])
			if (marker) this.#markers.push(marker);
		const snapshot: Snapshot = {
			time,
			host: this.#options.host,
			tick: ++this.#tickCount,
			memory: this.#lastMemory,
			cpu: sources.readCpu?.() ?? null,
			memoryError,
			gpu,
			gpuProcesses,
			ranks: this.#ranks,
			checkpoints: life.checkpoints,
			scheduler,
			// Judged here, once, so that every view, the log and the agent stream carry the same verdict.
			deadlineRisk: scheduler?.status === 'ok' ? deadlineRisk(scheduler.job, life.checkpoints) : null,
			// Each job's preemption readiness; the same object while nothing in it changed (the agent sends it only then).
			readiness: readinessOfJobs(
				{ranks: this.#ranks, checkpoints: life.checkpoints, scheduler},
				this.#options.readiness ?? NO_READINESS_OPTIONS,
				time,
				this.#snapshot?.readiness ?? null,
			),
			progress,
			ncclRas,
			jobMemory,
			gpuUnseen: sources.readGpuUnseen?.(gpu, gpuProcesses) ?? null,
			hostConsumers: sources.readHostConsumers?.(this.#ranks, hostShort(this.#lastMemory, thresholds.ram)) ?? null,
			ranksError: this.#ranksError,
			metrics,
			newAlerts,
			recentAlerts: this.#recentAlerts,
			events: life.events,
			recentEvents: life.recentEvents,
			savesSeen: life.savesSeen,
		};
		this.#snapshot = snapshot;
		for (const listener of this.#listeners) listener(snapshot);
		return snapshot;
	}

	/** On its own, slower cadence: a full /proc scan is the most expensive read of a tick. */
	async #readRanks(gpuProcesses: GpuProcessTable): Promise<void> {
		const {readRanks} = this.#options.sources;
		const now = this.#now();
		if (!readRanks || now - this.#ranksReadAt < (this.#options.ranksIntervalMs ?? 2000)) return;
		this.#ranksReadAt = now;
		try {
			this.#ranks = await readRanks.call(this.#options.sources, gpuProcesses);
			this.#ranksError = null;
			this.#waits = this.#options.sources.readWaits?.(this.#ranks) ?? null;
			this.#jobMemory = this.#options.sources.readJobMemory?.(this.#ranks) ?? this.#jobMemory;
			this.#rankHistory.record(this.#ranks);
		} catch (error) {
			// Keep the last ranks: a failed scan is not the job vanishing.
			this.#ranksError = errorMessage(error);
		}
	}

	#record(metric: MetricId, time: number, value: number): void {
		let buffer = this.#history.get(metric);
		if (!buffer) {
			buffer = new MetricHistory({recent: this.#options.historyLength ?? 3600});
			this.#history.set(metric, buffer);
		}
		buffer.push(time, value);
		const peak = this.#peaks.get(metric);
		if (peak === undefined || value > peak) this.#peaks.set(metric, value);
	}
}
