import type {RankSample} from '../core/rank-history.js';
import {formatDuration} from '../format/duration.js';
import {formatBytes, formatPercent} from '../format/units.js';
import {plotArea} from './widgets/braille-plot.js';

// The rank detail's small charts: its RSS and CPU at each rank scan since traintop first saw it, as
// braille areas with their scale, so that a leak (RSS only climbing) or a rank gone idle reads at a
// glance. Plain lines (the detail box is text); pure.

/** Columns of the scale before each chart. */
const SCALE = 10;

function chart(
	samples: readonly RankSample[],
	pick: (s: RankSample) => number | null,
	top: number,
	rows: number,
	width: number,
	label: (value: number) => string,
): string[] {
	const points = samples.flatMap(s => {
		const value = pick(s);
		return value === null ? [] : [{time: s.time, value}];
	});
	const from = samples[0]!.time;
	const to = Math.max(samples.at(-1)!.time, from + 1);
	const area = plotArea({points, from, to, width: Math.max(1, width - SCALE), height: rows, max: top});
	return area.map((row, i) => {
		const scale = i === 0 ? label(top) : i === rows - 1 ? label(0) : '';
		return `${scale.padStart(SCALE - 1)} ${row.map(c => c.char).join('')}`.trimEnd();
	});
}

/** `History` and the RSS and CPU charts, `width` columns at most; one line saying why when there is too little. */
export function rankHistoryLines(samples: readonly RankSample[], width: number): string[] {
	if (samples.length < 2) return ['History', '  one scan so far: the charts start with the next'];
	const span = formatDuration((samples.at(-1)!.time - samples[0]!.time) / 1000);
	const rss = samples.flatMap(s => (s.rssBytes === null ? [] : [s.rssBytes]));
	const cpu = samples.flatMap(s => (s.cpuPercent === null ? [] : [s.cpuPercent]));
	const rssTop = Math.max(1, ...rss) * 1.1;
	const cpuTop = Math.max(100, ...cpu);
	const lines = [`History (${samples.length} scans over ${span})`];
	if (rss.length > 0) {
		lines.push(`  RSS ${formatBytes(rss[0]!)} → ${formatBytes(rss.at(-1)!)}, peak ${formatBytes(Math.max(...rss))}`);
		lines.push(...chart(samples, s => s.rssBytes, rssTop, 3, width, formatBytes));
	}
	if (cpu.length > 0) {
		lines.push(`  CPU now ${formatPercent(cpu.at(-1)!)}, peak ${formatPercent(Math.max(...cpu))} of one core`);
		lines.push(
			...chart(
				samples,
				s => s.cpuPercent,
				cpuTop,
				2,
				width,
				v => `${Math.round(v)}%`,
			),
		);
	}
	return lines;
}
