// The time labels of the chart's axis (plot.ts): as coarse as reads at a glance, as fine as keeps them apart. A fixed
// `HH:MM` labelled a 2 m 07 s log `22:07 22:07 22:08 22:08 22:09` and a day-long one `10:00 … 10:00` (issue 16).

/** Where an ISO time's minutes, seconds and milliseconds end: the precisions tried, coarsest first. */
const PRECISIONS = [16, 19, 23] as const;

export interface TimeLabel {
	/** Epoch ms of the tick. */
	readonly time: number;
	readonly label: string;
}

/**
 * Labels for the tick times (epoch ms, ascending): `HH:MM`, else `HH:MM:SS`, else `HH:MM:SS.mmm`, the coarsest at which
 * no two read alike; with the date (`MM-DD HH:MM`) where the ticks fall on more than one day, and the year where on
 * more than one year. Ticks that read alike even to the millisecond (a span of a few ms) keep only their first.
 */
export function timeLabels(times: readonly number[]): TimeLabel[] {
	const isos = times.map(t => new Date(t).toISOString());
	const first = isos[0] ?? '';
	const last = isos[isos.length - 1] ?? '';
	const from = first.slice(0, 4) !== last.slice(0, 4) ? 0 : first.slice(0, 10) !== last.slice(0, 10) ? 5 : 11;
	let labels: string[] = [];
	for (const end of PRECISIONS) {
		labels = isos.map(iso => iso.slice(from, end).replace('T', ' '));
		if (new Set(labels).size === labels.length) break;
	}
	const seen = new Set<string>();
	const out: TimeLabel[] = [];
	labels.forEach((label, i) => {
		if (seen.has(label)) return;
		seen.add(label);
		out.push({time: times[i]!, label});
	});
	return out;
}
