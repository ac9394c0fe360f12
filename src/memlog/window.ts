import type {Alert, Snapshot} from '../core/types.js';
import type {LogContext} from '../metrics/metric.js';
import {METRICS} from '../metrics/registry.js';
import {schedulerLogKeys} from '../scheduler/registry.js';
import {roundPercent} from './log-rounding.js';
import type {AlertRecord, LogRecord, LogSchedulerJob} from './record.js';

function alertRecord(alert: Alert): AlertRecord {
	return {
		time: new Date(alert.time).toISOString(),
		metric: alert.metric,
		value: roundPercent(alert.value),
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
	/** Each metric's own state for this window (its peaks), in the registry's order. */
	#states: unknown[] = startStates();
	#alerts: Alert[] = [];
	/**
	 * The scheduler's job of its last answer, and the scheduler's kind: kept across windows while the scheduler does
	 * not answer.
	 */
	#job: LoggedSchedulerJob | null = null;
	readonly #context: LogContext;

	/**
	 * `gpuThreshold`: the run's global GPU threshold (`--gpu-threshold`), or null to write no GPU's own line. A GPU
	 * judged by another one (`--gpu-thresholds`, a cluster.yaml reserve factor) gets it in its entry.
	 */
	constructor(logIntervalMs: number, sampleIntervalMs: number, gpuThreshold: number | null = null) {
		this.#logIntervalMs = logIntervalMs;
		this.#toleranceMs = sampleIntervalMs / 2;
		this.#context = {gpuThreshold};
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
		this.#job = schedulerJobOf(s, this.#job);
		for (const [i, metric] of METRICS.entries()) metric.log.fold(this.#states[i], s);
	}

	#reset(): void {
		this.#samples = 0;
		this.#last = null;
		this.#states = startStates();
		this.#alerts = [];
	}

	#build(): LogRecord {
		const last = this.#last!;
		const head = {
			timestamp: new Date(last.time).toISOString(),
			host: last.host,
			interval_s: this.#logIntervalMs / 1000,
			samples: this.#samples,
		};
		const metrics = METRICS.map((metric, i) => metric.log.write(this.#states[i], last, this.#context));
		// The registry's entries write `memory`, `swap`, `gpu`, `gpus` and `gpu_status` into every record.
		return Object.assign(head, ...metrics, {alerts: this.#alerts.map(alertRecord)}, this.#jobKeys()) as LogRecord;
	}

	/** Every scheduler's log key: the job under its own scheduler's, null under the others'. */
	#jobKeys(): Record<string, LogSchedulerJob | null> {
		const job = this.#job;
		return Object.fromEntries(
			LOG_KEYS.map(({kind, key}) => [key, job !== null && job.kind === kind ? job.record : null]),
		);
	}
}

function startStates(): unknown[] {
	return METRICS.map(metric => metric.log.start());
}

/** The schedulers' keys in the log, as the registry lists them. */
const LOG_KEYS = schedulerLogKeys();

interface LoggedSchedulerJob {
	readonly kind: string;
	readonly record: LogSchedulerJob;
}

/**
 * The job a record is written under: the scheduler's answer when it gave one; while it does not answer, the last
 * known (the job did not change because its controller is busy); null outside a scheduler's job and once the job is
 * not found.
 */
function schedulerJobOf(s: Snapshot, last: LoggedSchedulerJob | null): LoggedSchedulerJob | null {
	const state = s.scheduler ?? null;
	if (state === null || state.status === 'not-found') return null;
	const job = state.job;
	if (job === null) return last;
	const {kind} = state;
	if (last?.kind === kind && last.record.job_id === job.id && last.record.restart_count === job.restarts) return last;
	return {kind, record: {job_id: job.id, restart_count: job.restarts}};
}
