import type {ReadLogRecord} from './record.js';
import {ColumnBuilder, type Column} from './column.js';
import {GpuIds, HostIds, OTHER_GPUS_ID} from './fold.js';
import {MetricBuilder} from './metric-builder.js';
import type {MetricKind} from './metric-series.js';
import {fillFromRecord, RecordFields} from './record-fields.js';
import {type LoggedJob, RAM_AGAINST, type Series, type TimeJump} from './series-types.js';
import {grow, resize} from './typed-arrays.js';

// Collects memory-log records into per-metric numeric series, for `traintop --analyze` (the shapes it builds are
// series-types.ts and metric-series.ts). Numbers live in growable typed arrays (doubling), never in an object per
// point, so a log of a million records fits in a few tens of MB.

/** Where a metric goes in display order: ram, swap, gpu, gpu0, gpu1… and the folded GPUs (fold.ts) last. */
export function metricRank(id: string): number {
	if (id === OTHER_GPUS_ID) return Number.MAX_SAFE_INTEGER;
	return id === 'ram' ? -3 : id === 'swap' ? -2 : id === 'gpu' ? -1 : Number(id.slice(3));
}

const INITIAL = 1024;

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Collects records (in any order) into per-metric series. */
export class SeriesCollector {
	#count = 0;
	#time = new Float64Array(INITIAL);
	readonly #interval = new ColumnBuilder(n => new Float32Array(n));
	readonly #host = new ColumnBuilder(n => new Int32Array(n));
	readonly #hostIds: HostIds;
	readonly #schedulerJob = new ColumnBuilder(n => new Int32Array(n));
	/** A job's index in #schedulerJobs, by its log key and id. */
	readonly #schedulerJobIds = new Map<string, Map<string, number>>();
	readonly #schedulerJobs: LoggedJob[] = [];
	readonly #schedulerRestarts = new ColumnBuilder(n => new Int32Array(n));
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

	/** The index of the record's scheduler job in #schedulerJobs (added when new); -1: it names none. */
	#jobOf(f: RecordFields): number {
		const key = f.schedulerKey;
		const id = f.schedulerJob;
		if (key === undefined || id === undefined || !isNum(f.schedulerRestarts)) return -1;
		let ids = this.#schedulerJobIds.get(key);
		if (ids === undefined) this.#schedulerJobIds.set(key, (ids = new Map()));
		let job = ids.get(id);
		if (job === undefined) {
			job = this.#schedulerJobs.length;
			this.#schedulerJobs.push({key, id});
			ids.set(id, job);
		}
		return job;
	}

	#perRecord(): ColumnBuilder[] {
		return [this.#schedulerJob, this.#schedulerRestarts, this.#ramAgainst, this.#ramLimitGb];
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
		const job = this.#jobOf(f);
		this.#schedulerJob.push(job);
		this.#schedulerRestarts.push(job < 0 ? -1 : f.schedulerRestarts);
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
		const [schedulerJob, schedulerRestarts, ramAgainst, ramLimitGb] = this.#perRecord().map(c => c.build(order)) as [
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
			schedulerJob,
			schedulerJobs: [...this.#schedulerJobs],
			schedulerRestarts,
			ramAgainst,
			ramLimitGb,
			metrics,
			timeJumps: this.#hostIds.names.length > 1 ? [...this.#hostJumps] : [...this.#jumps],
			sorted: inverse !== null,
			folded: [this.#hostIds.fold.result(), this.#devices.fold.result()].filter(f => f !== null),
		};
	}
}
