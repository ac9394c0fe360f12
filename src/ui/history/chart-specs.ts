import type {HistoryPoint} from '../../core/metric-history.js';
import type {Level, MetricId, MetricStatus} from '../../core/types.js';
import {worse} from '../../format/levels.js';

// What the history pane charts, from the Monitor's series: RAM, swap where there is any, and each GPU
// — or the GPUs as one chart of their highest when there is no room for one each. Pure.

export interface ChartSpec {
	readonly id: string;
	readonly label: string;
	readonly points: readonly HistoryPoint[];
	/** The critical threshold in percent; null when not judged yet. */
	readonly threshold: number | null;
	readonly level: Level;
	/** The latest value; null before the first. */
	readonly now: number | null;
	/** A label of a few letters, for the one-line strips. */
	readonly short?: string;
	/** The metrics it draws: their alerts are marked on it. */
	readonly metrics: readonly MetricId[];
	/** Which GPU the latest highest value is on, for a merged chart. */
	readonly note?: string;
}

export type Series = Readonly<Record<MetricId, readonly HistoryPoint[]>>;

function spec(
	id: MetricId,
	label: string,
	series: Series,
	metrics: Readonly<Record<MetricId, MetricStatus>>,
): ChartSpec {
	const status = metrics[id];
	return {
		id,
		label,
		points: series[id] ?? [],
		threshold: status?.threshold ?? null,
		level: status?.level ?? 'ok',
		now: status?.value ?? null,
		metrics: [id],
	};
}

/** RAM, swap (when the host has it), then one chart per GPU in index order. */
export function chartSpecs(metrics: Readonly<Record<MetricId, MetricStatus>>, series: Series): ChartSpec[] {
	const specs = [spec('ram', 'RAM', series, metrics)];
	if (metrics.swap) specs.push(spec('swap', 'swap', series, metrics));
	const gpus = Object.keys(metrics)
		.filter(id => /^gpu\d+$/.test(id))
		.sort((a, b) => Number(a.slice(3)) - Number(b.slice(3)));
	for (const id of gpus) specs.push(spec(id, id.replace('gpu', 'GPU'), series, metrics));
	return specs;
}

/**
 * The GPU charts as one: at each moment the highest of them (the chart bins by the highest value, so
 * their points together are that), the worst level, and which GPU is highest now.
 */
export function mergeGpus(specs: readonly ChartSpec[]): ChartSpec[] {
	const gpus = specs.filter(s => s.id.startsWith('gpu'));
	if (gpus.length < 2) return [...specs];
	const highest = gpus.reduce((a, b) => ((b.now ?? -1) > (a.now ?? -1) ? b : a));
	const merged: ChartSpec = {
		id: 'gpus',
		label: `GPU highest of ${gpus.length}`,
		short: 'GPU max',
		points: gpus.flatMap(g => g.points),
		threshold: highest.threshold,
		level: gpus.map(g => g.level).reduce(worse),
		now: highest.now,
		metrics: gpus.flatMap(g => g.metrics),
		note: highest.label,
	};
	return [...specs.filter(s => !s.id.startsWith('gpu')), merged];
}

/** The marks of one chart: saves and exits on every chart, an alert only on its metric's. */
export function markersFor<M extends {readonly metric?: MetricId}>(spec: ChartSpec, markers: readonly M[]): M[] {
	return markers.filter(m => m.metric === undefined || spec.metrics.includes(m.metric));
}
