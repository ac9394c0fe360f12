import type {ReadLogRecord} from './record.js';
import {ColumnBuilder, type Column} from './column.js';
import {type Folded, GpuIds, HostIds, OTHER_GPUS_ID} from './fold.js';
import {MetricBuilder} from './metric-builder.js';
import {fillFromRecord, RecordFields} from './record-fields.js';
import {grow, resize} from './typed-arrays.js';

// Per-metric numeric series extracted from memory-log records, for `traintop --analyze`.
// Numbers live in growable typed arrays (doubling), never in an object per point, so a log of a
// million records fits in a few tens of MB.

/** Which threshold rule a metric is judged by. */
export type MetricKind = 'ram' | 'swap' | 'gpu';

export interface MetricSeries {
	/** `ram`, `swap`, `gpu` (aggregate) or `gpu0`, `gpu1`… by index. */
	readonly id: string;
	readonly kind: MetricKind;
	/** For a single GPU: its uuid / name when a record gave one. */
	readonly uuid: string | null;
	readonly name: string | null;
	/** Number of points; the arrays below have exactly this length. */
	readonly count: number;
	/**
	 * Index of each point's record in Series (times, intervals, hosts), ascending; null when the
	 * metric is in every record (point i is record i). Use recordOf().
	 */
	readonly record: Uint32Array | null;
	/**
	 * Percent. Float32 (7 significant digits, far beyond the logs' 0.1 %) halves the memory of a
	 * million-record log; compare against thresholds with Math.fround.
	 */
	readonly value: Float32Array;
	/** The record's peak percent when present, else the value (the same array when no record had one). */
	readonly peak: Float32Array;
	/** RAM only: GiB used (for the trend in GiB/h). */
	readonly usedGb: Float32Array | null;
	/**
	 * A single GPU only: its own critical threshold per point as the record gave it (`gpus[].threshold`), NaN where
	 * the record gave none (the global GPU threshold judges that point); null when no record gave one.
	 */
	readonly threshold: Float32Array | null;
	/**
	 * A single GPU's uuid and name as each host's records gave them, by host id + 1 (0: records that name no host):
	 * GPU 0 of one node is not GPU 0 of another, so splitting by host (by-host.ts) takes these, not uuid/name.
	 */
	readonly hostUuid: readonly (string | undefined)[];
	readonly hostName: readonly (string | undefined)[];
}

/** Where a metric goes in display order: ram, swap, gpu, gpu0, gpu1… and the folded GPUs (fold.ts) last. */
export function metricRank(id: string): number {
	if (id === OTHER_GPUS_ID) return Number.MAX_SAFE_INTEGER;
	return id === 'ram' ? -3 : id === 'swap' ? -2 : id === 'gpu' ? -1 : Number(id.slice(3));
}

/** The record index of point i of a metric. */
export function recordOf(metric: MetricSeries, i: number): number {
	return metric.record ? metric.record[i]! : i;
}

/** A time going backwards in input order (a restart, or files given out of order). */
export interface TimeJump {
	/** Epoch ms of the record that went back. */
	readonly time: number;
	/** Epoch ms of the record before it (of the same host, in a log of several hosts). */
	readonly previous: number;
	/** Index into Series.hosts of the host it happened on; -1 for records that name none. */
	readonly host: number;
}

export interface Series {
	/** Records added (each one a point in time, whatever metrics it has). */
	readonly records: number;
	/** Epoch ms per record, ascending. */
	readonly time: Float64Array;
	/** interval_s per record; NaN when the record has none. */
	readonly interval: Column;
	/** Index into `hosts` per record; -1 when the record names none. */
	readonly host: Column;
	readonly hosts: readonly string[];
	/** Index into `slurmJobs` per record; -1 when the record names no SLURM job (outside SLURM, or an older log). */
	readonly slurmJob: Column;
	readonly slurmJobs: readonly string[];
	/** The SLURM job's restart count per record; -1 when the record names no job. */
	readonly slurmRestarts: Column;
	/** What the record's `ram` point is judged against (RAM_AGAINST); HOST_RAM when it has no RAM point. */
	readonly ramAgainst: Column;
	/** The cgroup limit of the record's `ram` point, GiB; NaN where the point is against the host's RAM. */
	readonly ramLimitGb: Column;
	/** Metrics in display order: ram, swap, gpu, gpu0, gpu1… Only metrics with at least one point. */
	readonly metrics: readonly MetricSeries[];
	/**
	 * Times going backwards, in input order: judged record to record over the whole log when it names at most one
	 * host, else within each host (two nodes' files read one after the other are not a restart).
	 */
	readonly timeJumps: readonly TimeJump[];
	/** Whether finish() had to sort the records by time. */
	readonly sorted: boolean;
	/** Hosts and GPUs past the caps (fold.ts), each fold's account; empty when nothing was folded. */
	readonly folded: readonly Folded[];
}

/** Series.ramAgainst: the host's total RAM (no cgroup limit in the record), the ranks' cgroup, traintop's own. */
export const RAM_AGAINST = {host: 0, jobCgroup: 1, traintopCgroup: 2} as const;

const INITIAL = 1024;

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Collects records (in any order) into per-metric series. */
export class SeriesCollector {
	#count = 0;
	#time = new Float64Array(INITIAL);
	readonly #interval = new ColumnBuilder(n => new Float32Array(n));
	readonly #host = new ColumnBuilder(n => new Int32Array(n));
	readonly #hostIds: HostIds;
	readonly #slurmJob = new ColumnBuilder(n => new Int32Array(n));
	readonly #slurmJobIds = new Map<string, number>();
	readonly #slurmJobs: string[] = [];
	readonly #slurmRestarts = new ColumnBuilder(n => new Int32Array(n));
	readonly #ramAgainst = new ColumnBuilder(n => new Int32Array(n));
	readonly #ramLimitGb = new ColumnBuilder(n => new Float32Array(n));
	readonly #metrics = new Map<string, MetricBuilder>();
	readonly #jumps: TimeJump[] = [];
	#ordered = true;
	#last = Number.NEGATIVE_INFINITY;
	/** Each host's own jumps and last time, by host id + 1: what timeJumps holds once the log names two hosts. */
	readonly #hostJumps: TimeJump[] = [];
	readonly #hostLast: number[] = [Number.NEGATIVE_INFINITY];

	/** `keepHost`: a host kept apart however many come before it (`--host`'s). */
	constructor(keepHost?: string) {
		this.#hostIds = new HostIds(keepHost);
	}

	#metric(id: string, kind: MetricKind): MetricBuilder {
		let metric = this.#metrics.get(id);
		if (!metric) {
			// Room for every record only for a metric of the first record (#count counts it already): one met later (a GPU index of one record)
			// grows as its points come, so many of them cost their points, not the log's length each.
			metric = new MetricBuilder(id, kind, id === 'ram', this.#count <= 1 ? this.#time.length : INITIAL);
			this.#metrics.set(id, metric);
		}
		return metric;
	}

	readonly #fields = new RecordFields();
	/** Each GPU's builder by index: no `gpu${index}` string and map lookup per device per record. */
	readonly #devices = new GpuIds();

	/**
	 * Room for `records` records in every column, so a big log is not copied at each doubling (and
	 * does not hold old and new arrays at once). An estimate: more records still fit, by doubling.
	 */
	reserve(records: number): void {
		const capacity = Math.ceil(records);
		if (capacity <= this.#time.length) return;
		this.#time = resize(this.#time, capacity);
		this.#interval.reserve(capacity);
		this.#host.reserve(capacity);
		for (const column of this.#perRecord()) column.reserve(capacity);
		// Only metrics in most records so far: a sparse one would otherwise hold the whole log's room for a few points.
		for (const metric of this.#metrics.values()) if (metric.count * 2 >= this.#count) metric.reserve(capacity);
	}

	#perRecord(): ColumnBuilder[] {
		return [this.#slurmJob, this.#slurmRestarts, this.#ramAgainst, this.#ramLimitGb];
	}

	/** Add one record; `time` is its timestamp in epoch ms (as the reader parsed it). */
	add(record: ReadLogRecord, time: number): void {
		fillFromRecord(this.#fields, record, time);
		this.addFields(this.#fields);
	}

	/** Add one record given as its fields (the reader's byte scanner fills them without objects). */
	addFields(f: RecordFields): void {
		const r = this.#count;
		const time = f.time;
		if (r >= this.#time.length) {
			this.#time = grow(this.#time, r + 1);
		}
		this.#time[r] = time;
		this.#interval.push(f.interval > 0 ? f.interval : Number.NaN);
		let host = -1;
		if (f.host !== undefined) {
			host = this.#hostIds.idOf(f.host);
			if (host + 1 === this.#hostLast.length) this.#hostLast.push(Number.NEGATIVE_INFINITY);
		}
		this.#host.push(host);
		let job = -1;
		if (f.slurmJob !== undefined && isNum(f.slurmRestarts)) {
			job = this.#slurmJobIds.get(f.slurmJob) ?? -1;
			if (job < 0) {
				job = this.#slurmJobs.length;
				this.#slurmJobs.push(f.slurmJob);
				this.#slurmJobIds.set(f.slurmJob, job);
			}
		}
		this.#slurmJob.push(job);
		this.#slurmRestarts.push(job < 0 ? -1 : f.slurmRestarts);
		if (time < this.#last) {
			this.#ordered = false;
			this.#jumps.push({time, previous: this.#last, host});
		}
		this.#last = time;
		const hostLast = this.#hostLast[host + 1]!;
		// The folded hosts' records interleave many machines' clocks: time going back there is no restart.
		if (time < hostLast && !this.#hostIds.isFolded(host)) this.#hostJumps.push({time, previous: hostLast, host});
		this.#hostLast[host + 1] = time;
		this.#count = r + 1;

		// RAM is judged per record against the limit the live alerts used then: the job's cgroup limit where the
		// record has one (the OOM killer acts there, see core/ram-limit.ts), else the host's total.
		const cgroup = f.memory && f.cgroup && isNum(f.cgPercent);
		this.#ramAgainst.push(cgroup ? (f.cgJob ? RAM_AGAINST.jobCgroup : RAM_AGAINST.traintopCgroup) : RAM_AGAINST.host);
		this.#ramLimitGb.push(cgroup ? f.cgLimit : Number.NaN);
		if (cgroup) {
			this.#metric('ram', 'ram').push(r, f.cgPercent, isNum(f.cgPeak) ? f.cgPeak : f.cgPercent, f.cgUsed);
		} else if (f.memory && isNum(f.memPercent)) {
			this.#metric('ram', 'ram').push(r, f.memPercent, isNum(f.memPeak) ? f.memPeak : f.memPercent, f.memUsed);
		}
		if (f.swap && isNum(f.swapPercent) && f.swapTotal > 0) {
			this.#metric('swap', 'swap').push(r, f.swapPercent, isNum(f.swapPeak) ? f.swapPeak : f.swapPercent);
		}
		if (f.gpu && isNum(f.gpuPercent)) {
			this.#metric('gpu', 'gpu').push(r, f.gpuPercent, isNum(f.gpuPeak) ? f.gpuPeak : f.gpuPercent);
		}
		for (let d = 0; d < f.devices; d++) {
			const index = f.devIndex[d]!;
			const percent = f.devPercent[d]!;
			if (!isNum(percent) || !Number.isInteger(index) || index < 0) continue;
			const peak = f.devPeak[d]!;
			const metric = this.#devices.metricOf(index, id => this.#metric(id, 'gpu'));
			if (metric.id === this.#devices.other) {
				// Past the cap: the series holds each record's highest of the GPUs folded into it.
				if (metric.lastRecord() === r) metric.raiseLast(percent, isNum(peak) ? peak : percent, f.devThreshold[d]!);
				else metric.push(r, percent, isNum(peak) ? peak : percent, 0, f.devThreshold[d]!);
				continue;
			}
			// Two entries for the same index in one record: keep the first.
			if (metric.lastRecord() === r) continue;
			const uuid = f.devUuid[d];
			const name = f.devName[d];
			if (uuid) {
				metric.uuid = uuid;
				metric.hostUuid[host + 1] = uuid;
			}
			if (name) {
				metric.name = name;
				metric.hostName[host + 1] = name;
			}
			metric.push(r, percent, isNum(peak) ? peak : percent, 0, f.devThreshold[d]!);
		}
	}

	/** The collected series, sorted by time if the input was not already in order. */
	finish(): Series {
		const n = this.#count;
		let time = this.#time.subarray(0, n);
		let order: Uint32Array | null = null;
		let inverse: Uint32Array | null = null;
		if (!this.#ordered) {
			order = new Uint32Array(n);
			for (let i = 0; i < n; i++) order[i] = i;
			const t = time;
			order.sort((a, b) => t[a]! - t[b]! || a - b);
			inverse = new Uint32Array(n);
			const newTime = new Float64Array(n);
			for (let i = 0; i < n; i++) {
				const old = order[i]!;
				inverse[old] = i;
				newTime[i] = time[old]!;
			}
			time = newTime;
		}
		const interval = this.#interval.build(order);
		const host = this.#host.build(order);
		const [slurmJob, slurmRestarts, ramAgainst, ramLimitGb] = this.#perRecord().map(c => c.build(order)) as [
			Column,
			Column,
			Column,
			Column,
		];
		const metrics = [...this.#metrics.values()]
			.filter(m => m.count > 0)
			.sort((a, b) => metricRank(a.id) - metricRank(b.id))
			.map(m => m.build(inverse));
		return {
			records: n,
			time,
			interval,
			host,
			hosts: [...this.#hostIds.names],
			slurmJob,
			slurmJobs: [...this.#slurmJobs],
			slurmRestarts,
			ramAgainst,
			ramLimitGb,
			metrics,
			timeJumps: this.#hostIds.names.length > 1 ? [...this.#hostJumps] : [...this.#jumps],
			sorted: inverse !== null,
			folded: [this.#hostIds.fold.result(), this.#devices.fold.result()].filter(f => f !== null),
		};
	}
}
