import {logJobOf, type ReadLogRecord} from './record.js';
import {JOB_KEYS} from './record-keys.js';

// The numbers `--analyze` takes from one memory record, in a flat reusable struct. Both ways of
// reading a record fill it: the byte scanner (scan-line.ts) for our own JSON Lines, and
// fillFromRecord() for a record that went through JSON.parse and the schema. One struct, one
// consumer (SeriesCollector.addFields), so the two paths cannot disagree on what a record means.

export class RecordFields {
	/** Epoch ms of the timestamp. */
	time = Number.NaN;
	/** interval_s; NaN when absent. */
	interval = Number.NaN;
	host: string | undefined = undefined;

	/** `memory` is an object (not null). */
	memory = false;
	memPercent = Number.NaN;
	/** peak_percent; NaN when absent. */
	memPeak = Number.NaN;
	memUsed = Number.NaN;
	/** `memory.cgroup` is there: the RAM is judged against its limit (cgPercent…), not the host's total. */
	cgroup = false;
	/** `memory.cgroup.scope` is 'job' (the ranks' cgroup), not traintop's own. */
	cgJob = false;
	cgPercent = Number.NaN;
	/** peak_percent; NaN when absent. */
	cgPeak = Number.NaN;
	cgUsed = Number.NaN;
	cgLimit = Number.NaN;

	/** `swap` is an object. */
	swap = false;
	swapPercent = Number.NaN;
	swapPeak = Number.NaN;
	swapTotal = Number.NaN;

	/** `gpu` (the seed tool's aggregate) is an object. */
	gpu = false;
	gpuPercent = Number.NaN;
	gpuPeak = Number.NaN;

	/** The scheduler's log key the record names its job under (its entry's `logKey`); undefined: no scheduler's job. */
	schedulerKey: string | undefined = undefined;
	/** Its `job_id`; undefined when the record names no scheduler's job. */
	schedulerJob: string | undefined = undefined;
	/** Its `restart_count`; NaN without a scheduler's job. */
	schedulerRestarts = Number.NaN;

	/** Entries of `gpus`; the arrays below are valid up to this count. */
	devices = 0;
	readonly devIndex: number[] = [];
	/** memory_percent; NaN when null. */
	readonly devPercent: number[] = [];
	/** peak_memory_percent; NaN when absent or null. */
	readonly devPeak: number[] = [];
	readonly devUuid: (string | null)[] = [];
	readonly devName: (string | null)[] = [];
	/** The GPU's own threshold (`threshold`); NaN when the entry has none (judged by the global one). */
	readonly devThreshold: number[] = [];

	resetMemory(): void {
		this.memory = false;
		this.memPercent = this.memPeak = this.memUsed = Number.NaN;
		this.resetCgroup();
	}

	resetCgroup(): void {
		this.cgroup = this.cgJob = false;
		this.cgPercent = this.cgPeak = this.cgUsed = this.cgLimit = Number.NaN;
	}

	resetScheduler(): void {
		this.schedulerKey = this.schedulerJob = undefined;
		this.schedulerRestarts = Number.NaN;
	}

	/** The job under the scheduler's log key `key`. */
	setScheduler(key: string, job: string | undefined, restarts: number): void {
		this.schedulerKey = key;
		this.schedulerJob = job;
		this.schedulerRestarts = restarts;
	}

	resetSwap(): void {
		this.swap = false;
		this.swapPercent = this.swapPeak = this.swapTotal = Number.NaN;
	}

	resetGpu(): void {
		this.gpu = false;
		this.gpuPercent = this.gpuPeak = Number.NaN;
	}

	reset(): void {
		this.time = this.interval = Number.NaN;
		this.host = undefined;
		this.resetMemory();
		this.resetSwap();
		this.resetGpu();
		this.resetScheduler();
		this.devices = 0;
	}

	/** Appends a `gpus` entry; returns its slot. */
	addDevice(
		index: number,
		percent: number,
		peak: number,
		uuid: string | null,
		name: string | null,
		threshold = Number.NaN,
	): number {
		const i = this.devices++;
		this.devIndex[i] = index;
		this.devPercent[i] = percent;
		this.devPeak[i] = peak;
		this.devUuid[i] = uuid;
		this.devName[i] = name;
		this.devThreshold[i] = threshold;
		return i;
	}
}

const orNaN = (v: number | null | undefined): number => (typeof v === 'number' ? v : Number.NaN);

/** Fills `f` from a record that passed the schema (or the reader's equivalent fast check). */
export function fillFromRecord(f: RecordFields, record: ReadLogRecord, time: number): void {
	f.reset();
	f.time = time;
	f.interval = orNaN(record.interval_s);
	f.host = record.host;
	const m = record.memory;
	if (m) {
		f.memory = true;
		f.memPercent = m.percent;
		f.memPeak = orNaN(m.peak_percent);
		f.memUsed = m.used_gb;
		const c = m.cgroup;
		if (c) {
			f.cgroup = true;
			f.cgJob = c.scope === 'job';
			f.cgPercent = c.percent;
			f.cgPeak = orNaN(c.peak_percent);
			f.cgUsed = c.used_gb;
			f.cgLimit = c.limit_gb;
		}
	}
	for (const key of JOB_KEYS) {
		const job = logJobOf(record, key);
		if (job) f.setScheduler(key, job.job_id, job.restart_count);
	}
	const s = record.swap;
	if (s) {
		f.swap = true;
		f.swapPercent = s.percent;
		f.swapPeak = orNaN(s.peak_percent);
		f.swapTotal = s.total_gb;
	}
	const g = record.gpu;
	if (g) {
		f.gpu = true;
		f.gpuPercent = g.memory_percent;
		f.gpuPeak = orNaN(g.peak_memory_percent);
	}
	for (const d of record.gpus ?? []) {
		const peak = orNaN(d.peak_memory_percent);
		f.addDevice(d.index, orNaN(d.memory_percent), peak, d.uuid ?? null, d.name ?? null, orNaN(d.threshold));
	}
}
