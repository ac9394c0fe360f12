import {gpuMetricId} from '../core/metric-id.js';
import type {Alert, GpuReading, Snapshot} from '../core/types.js';
import {slurmViewOf} from '../slurm/scheduler-state.js';
import {roundGib, roundPercent} from './log-rounding.js';
import type {AlertRecord, GpuRecord, LogRecord, LogSlurmJob} from './record.js';

const GIB = 1024 ** 3;

const gb = (bytes: number) => roundGib(bytes / GIB);
const pct = roundPercent;

function maxOf(current: number | null, value: number | null): number | null {
	if (value === null) return current;
	return current === null || value > current ? value : current;
}

interface GpuAggregate {
	readonly usedBytes: number;
	readonly totalBytes: number;
	readonly percent: number;
}

/** Sum over the GPUs whose memory is known; null when none is (no GPU, MIG-only, GB10). */
export function aggregateGpus(gpus: readonly GpuReading[]): GpuAggregate | null {
	let used = 0;
	let total = 0;
	for (const g of gpus) {
		if (g.memoryUsedBytes === null || g.memoryTotalBytes === null || g.memoryTotalBytes <= 0) continue;
		used += g.memoryUsedBytes;
		total += g.memoryTotalBytes;
	}
	return total > 0 ? {usedBytes: used, totalBytes: total, percent: (used / total) * 100} : null;
}

function alertRecord(alert: Alert): AlertRecord {
	return {
		time: new Date(alert.time).toISOString(),
		metric: alert.metric,
		value: pct(alert.value),
		threshold: alert.threshold,
		from: alert.from,
		to: alert.to,
	};
}

/**
 * Folds the snapshots of one log interval into one record holding the window's last values AND its
 * peaks, so a spike between two records is never lost (the seed tool logged only the instant).
 *
 * Windows sit on a fixed grid from the first sample (no drift), and a sample closes its window when
 * it lands within half a sampling period of the boundary, so timer jitter does not shift samples
 * into the next record.
 */
export class LogWindow {
	readonly #logIntervalMs: number;
	readonly #toleranceMs: number;
	#end: number | null = null;
	#samples = 0;
	#last: Snapshot | null = null;
	#peakRam: number | null = null;
	#peakRamUsed: number | null = null;
	#peakCgroup: number | null = null;
	#peakSwap: number | null = null;
	#peakGpuAggregate: number | null = null;
	#peakGpu = new Map<number, number>();
	#lastGpus = new Map<number, GpuReading>();
	/** Each GPU's critical line as the Monitor judged its last reading, by index. */
	#lastLines = new Map<number, number>();
	#alerts: Alert[] = [];
	/** The SLURM job of the controller's last answer: kept across windows while the controller does not answer. */
	#slurm: LogSlurmJob | null = null;

	/**
	 * The run's global GPU threshold (`--gpu-threshold`), or null to write no GPU's own line. A GPU judged by
	 * another one (`--gpu-thresholds`, a cluster.yaml reserve factor) gets it in its entry, so `--analyze` judges
	 * it as the live alerts did; the others go without, and the log keeps its size.
	 */
	readonly #gpuThreshold: number | null;

	constructor(logIntervalMs: number, sampleIntervalMs: number, gpuThreshold: number | null = null) {
		this.#logIntervalMs = logIntervalMs;
		this.#toleranceMs = sampleIntervalMs / 2;
		this.#gpuThreshold = gpuThreshold;
	}

	/** Add one snapshot; returns the finished record when this sample closes the window. */
	add(snapshot: Snapshot): LogRecord | null {
		this.#end ??= snapshot.time + this.#logIntervalMs;
		this.#fold(snapshot);
		if (snapshot.time < this.#end - this.#toleranceMs) return null;
		const record = this.#build();
		while (this.#end <= snapshot.time + this.#toleranceMs) this.#end += this.#logIntervalMs;
		this.#reset();
		return record;
	}

	/** The partial window as a final record (on SIGINT/SIGTERM), or null if it holds no sample. */
	flush(): LogRecord | null {
		if (this.#samples === 0) return null;
		const record = this.#build();
		this.#reset();
		return record;
	}

	#fold(s: Snapshot): void {
		this.#samples++;
		this.#last = s;
		this.#alerts.push(...s.newAlerts);
		this.#slurm = slurmJobOf(s, this.#slurm);
		if (s.memory && s.memoryError === null) {
			this.#peakRam = maxOf(this.#peakRam, s.memory.ram.percent);
			this.#peakRamUsed = maxOf(this.#peakRamUsed, s.memory.ram.usedBytes);
			this.#peakCgroup = maxOf(this.#peakCgroup, s.memory.cgroup?.percent ?? null);
			if (s.memory.swap) this.#peakSwap = maxOf(this.#peakSwap, s.memory.swap.percent);
		}
		if (s.gpu.status === 'ok') {
			for (const g of s.gpu.gpus) {
				this.#lastGpus.set(g.index, g);
				const line = s.metrics[gpuMetricId(g.index)]?.threshold;
				if (line === undefined) this.#lastLines.delete(g.index);
				else this.#lastLines.set(g.index, line);
				const peak = maxOf(this.#peakGpu.get(g.index) ?? null, g.memoryPercent);
				if (peak !== null) this.#peakGpu.set(g.index, peak);
			}
			this.#peakGpuAggregate = maxOf(this.#peakGpuAggregate, aggregateGpus(s.gpu.gpus)?.percent ?? null);
		}
	}

	#reset(): void {
		this.#samples = 0;
		this.#last = null;
		this.#peakRam = null;
		this.#peakRamUsed = null;
		this.#peakCgroup = null;
		this.#peakSwap = null;
		this.#peakGpuAggregate = null;
		this.#peakGpu = new Map();
		this.#lastGpus = new Map();
		this.#lastLines = new Map();
		this.#alerts = [];
	}

	/** `threshold` for a GPU judged by a line other than the global one; nothing for the others. */
	#ownLine(index: number): {threshold?: number} {
		const line = this.#lastLines.get(index);
		return this.#gpuThreshold === null || line === undefined || line === this.#gpuThreshold ? {} : {threshold: line};
	}

	#build(): LogRecord {
		const last = this.#last!;
		const mem = last.memory;
		const gpus: GpuRecord[] = [...this.#lastGpus.values()]
			.sort((a, b) => a.index - b.index)
			.map(g => ({
				index: g.index,
				uuid: g.uuid,
				name: g.name,
				memory_used_gb: g.memoryUsedBytes === null ? null : gb(g.memoryUsedBytes),
				memory_total_gb: g.memoryTotalBytes === null ? null : gb(g.memoryTotalBytes),
				memory_percent: g.memoryPercent === null ? null : pct(g.memoryPercent),
				peak_memory_percent: this.#peakGpu.has(g.index) ? pct(this.#peakGpu.get(g.index)!) : null,
				utilization_percent: g.utilizationPercent,
				temperature_c: g.temperatureC ?? null,
				power_draw_w: g.powerDrawW ?? null,
				power_limit_w: g.powerLimitW ?? null,
				...this.#ownLine(g.index),
			}));
		const aggregate = aggregateGpus([...this.#lastGpus.values()]);
		const gpuMessage = gpuStateMessage(last);
		return {
			timestamp: new Date(last.time).toISOString(),
			host: last.host,
			interval_s: this.#logIntervalMs / 1000,
			samples: this.#samples,
			memory:
				mem && this.#peakRam !== null
					? {
							total_gb: gb(mem.ram.totalBytes),
							used_gb: gb(mem.ram.usedBytes),
							percent: pct(mem.ram.percent),
							available_gb: gb(mem.ram.availableBytes),
							peak_percent: pct(this.#peakRam),
							peak_used_gb: gb(this.#peakRamUsed ?? mem.ram.usedBytes),
							...(mem.cgroup
								? {
										cgroup: {
											scope: mem.cgroup.scope,
											path: mem.cgroup.path,
											version: mem.cgroup.version,
											limit_gb: gb(mem.cgroup.limitBytes),
											used_gb: gb(mem.cgroup.usedBytes),
											percent: pct(mem.cgroup.percent),
											peak_percent: pct(this.#peakCgroup ?? mem.cgroup.percent),
										},
									}
								: {}),
						}
					: null,
			swap: mem?.swap
				? {
						total_gb: gb(mem.swap.totalBytes),
						used_gb: gb(mem.swap.usedBytes),
						percent: pct(mem.swap.percent),
						peak_percent: pct(this.#peakSwap ?? mem.swap.percent),
					}
				: null,
			gpu: aggregate
				? {
						memory_allocated_gb: gb(aggregate.usedBytes),
						memory_total_gb: gb(aggregate.totalBytes),
						memory_percent: pct(aggregate.percent),
						peak_memory_percent: pct(this.#peakGpuAggregate ?? aggregate.percent),
					}
				: null,
			gpus,
			gpu_status: last.gpu.status,
			...(gpuMessage ? {gpu_message: gpuMessage} : {}),
			alerts: this.#alerts.map(alertRecord),
			slurm: this.#slurm,
		};
	}
}

/**
 * The job a record is written under: the controller's answer when it gave one; while it does not answer, the last
 * known (the job did not change because slurmctld is busy); null outside SLURM and once the job is not found.
 */
function slurmJobOf(s: Snapshot, last: LogSlurmJob | null): LogSlurmJob | null {
	const view = slurmViewOf(s.scheduler);
	if (view === null || view.status === 'not-found') return null;
	const job = view.status === 'ok' ? view.job : (view.last ?? null);
	if (job === null) return last;
	if (last !== null && last.job_id === job.jobId && last.restart_count === job.restarts) return last;
	return {job_id: job.jobId, restart_count: job.restarts};
}

function gpuStateMessage(s: Snapshot): string | null {
	switch (s.gpu.status) {
		case 'absent':
			return s.gpu.reason;
		case 'error':
			return s.gpu.message;
		case 'ok':
			return s.gpu.warning;
		case 'starting':
			return null;
	}
}
