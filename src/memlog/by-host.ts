import {ColumnBuilder} from './column.js';
import {MetricBuilder} from './metric-builder.js';
import {recordOf, type MetricSeries} from './metric-series.js';
import type {Series} from './series-types.js';

// One series per host. A multi-node job writes a log per node (`traintop-memory.<host>.jsonl`), or several nodes'
// records land in one file; read as one series they made one RAM line that jumped between machines, with a false
// restart at every switch. Split here, each host's series is exactly what reading its records alone would give: its
// own time axis, gaps, restarts (time going back within the host) and metrics, GPU 0 named as that host named it.

export interface HostSeries {
	/** The host its records name; NO_HOST for those that name none beside named ones; null when no record names one. */
	readonly host: string | null;
	readonly series: Series;
}

/** The records that name no host in a log where others do (the seed tool's): no host name has spaces or parentheses. */
export const NO_HOST = '(no host)';

const float32 = (n: number) => new Float32Array(n);
const int32 = (n: number) => new Int32Array(n);

/** One host's records as they are copied out of the whole log's series. */
class HostPart {
	readonly time: Float64Array;
	readonly interval = new ColumnBuilder(float32);
	readonly host = new ColumnBuilder(int32);
	readonly schedulerJob = new ColumnBuilder(int32);
	readonly schedulerRestarts = new ColumnBuilder(int32);
	readonly ramAgainst = new ColumnBuilder(int32);
	readonly ramLimitGb = new ColumnBuilder(float32);
	readonly metrics: MetricSeries[] = [];

	constructor(records: number) {
		this.time = new Float64Array(records);
	}
}

/**
 * The log's series, one per host, in the order the hosts first appear (records that name no host last); with
 * `only`, just that host's (none when the log does not hold it). A log of one host is returned as it is, with no
 * copy: records that name no host there (the seed tool's, beside traintop's) are that host's, as they always
 * were. Otherwise every number is copied once into its host's series, so the split holds at most twice the log's
 * series, whatever the number of hosts.
 */
export function splitByHost(series: Series, only?: string): HostSeries[] {
	if (series.hosts.length <= 1) {
		const host = series.hosts[0] ?? null;
		return only === undefined || only === host ? [{host, series}] : [];
	}
	const n = series.records;
	// Group g is host id g − 1; group 0 the records that name no host. local[i]: record i's index in its group.
	const groups = series.hosts.length + 1;
	const onlyGroup = only === undefined ? -1 : only === NO_HOST ? 0 : series.hosts.indexOf(only) + 1;
	if (onlyGroup === 0 && only !== NO_HOST) return [];
	const counts = new Uint32Array(groups);
	const local = new Uint32Array(n);
	for (let i = 0; i < n; i++) local[i] = counts[series.host.at(i) + 1]!++;
	const parts = Array.from(counts, (count, g) =>
		count === 0 || (onlyGroup >= 0 && g !== onlyGroup) ? null : new HostPart(count),
	);

	for (let i = 0; i < n; i++) {
		const g = series.host.at(i) + 1;
		const part = parts[g];
		if (!part) continue;
		part.time[local[i]!] = series.time[i]!;
		part.interval.push(series.interval.at(i));
		// A host's series names one host, its own (index 0 of its `hosts`), or none.
		part.host.push(g === 0 ? -1 : 0);
		part.schedulerJob.push(series.schedulerJob.at(i));
		part.schedulerRestarts.push(series.schedulerRestarts.at(i));
		part.ramAgainst.push(series.ramAgainst.at(i));
		part.ramLimitGb.push(series.ramLimitGb.at(i));
	}
	for (const metric of series.metrics) {
		// Each host's builder sized to its own points of this metric: a metric of few points (a GPU index one host
		// has) then costs its points in every host, not every host's record count.
		const points = new Uint32Array(groups);
		for (let k = 0; k < metric.count; k++) points[series.host.at(recordOf(metric, k)) + 1]!++;
		const builders: (MetricBuilder | undefined)[] = [];
		for (let k = 0; k < metric.count; k++) {
			const record = recordOf(metric, k);
			const g = series.host.at(record) + 1;
			if (!parts[g]) continue;
			let builder = builders[g];
			if (!builder) {
				builder = new MetricBuilder(metric.id, metric.kind, metric.usedGb !== null, points[g]!);
				builders[g] = builder;
			}
			const threshold = metric.threshold?.[k] ?? Number.NaN;
			builder.push(local[record]!, metric.value[k]!, metric.peak[k]!, metric.usedGb?.[k] ?? 0, threshold);
		}
		builders.forEach((builder, g) => {
			if (!builder) return;
			const uuid = metric.hostUuid[g];
			const name = metric.hostName[g];
			builder.uuid = uuid ?? null;
			builder.name = name ?? null;
			// Index 1 is host 0 of the host's own series; index 0 its records that name no host.
			builder.hostUuid[g === 0 ? 0 : 1] = uuid;
			builder.hostName[g === 0 ? 0 : 1] = name;
			parts[g]!.metrics.push(builder.build(null));
		});
	}

	const own = (part: HostPart, g: number): Series => {
		const column = (builder: ColumnBuilder) => builder.build(null);
		return {
			records: part.time.length,
			time: part.time,
			interval: column(part.interval),
			host: column(part.host),
			hosts: g === 0 ? [] : [series.hosts[g - 1]!],
			schedulerJob: column(part.schedulerJob),
			schedulerJobs: series.schedulerJobs,
			schedulerRestarts: column(part.schedulerRestarts),
			ramAgainst: column(part.ramAgainst),
			ramLimitGb: column(part.ramLimitGb),
			metrics: part.metrics,
			// The collector judged them within each host in a log of several hosts (series.ts).
			timeJumps: series.timeJumps.filter(j => j.host + 1 === g).map(j => ({...j, host: g === 0 ? -1 : 0})),
			sorted: series.sorted,
			folded: series.folded,
		};
	};
	const out: HostSeries[] = [];
	// Group 0 last: the records that name no host are not a host to list first.
	for (const g of [...parts.keys()].slice(1).concat(0)) {
		const part = parts[g];
		if (part) out.push({host: g === 0 ? NO_HOST : series.hosts[g - 1]!, series: own(part, g)});
	}
	return out;
}
