import React from 'react';
import {Box, Text} from 'ink';
import type {Marker} from '../../core/markers.js';
import type {MetricId, MetricStatus} from '../../core/types.js';
import Line from '../widgets/Line.js';
import type {Need, PaneDefinition} from '../panes/pane.js';
import {GAP} from '../panes/pane.js';
import Chart from './Chart.js';
import {type ChartGrid, chartGrid} from './chart-grid.js';
import {type ChartSpec, chartSpecs, markersFor, mergeGpus, type Series} from './chart-specs.js';
import {stripLine} from './strips.js';
import {type HistoryWindow, windowLabel} from './window.js';

export interface Props {
	readonly metrics: Readonly<Record<MetricId, MetricStatus>>;
	readonly series: Series;
	readonly markers: readonly Marker[];
	readonly window: HistoryWindow;
	/** Epoch ms at the charts' left and right edges. */
	readonly from: number;
	readonly to: number;
	readonly width: number;
	/** Lines it is given, all of which it fills: the history takes the screen's spare rows. */
	readonly height: number;
}

/** Plot rows that make a chart worth showing every metric for; below, fewer and bigger charts. */
const READABLE_PLOT_ROWS = 3;

/**
 * The most charts on offer that are still readable: all of them, then the GPUs as one chart, then without
 * swap, then RAM alone; failing all, the same order with one plot row each.
 */
function arrange(
	specs: readonly ChartSpec[],
	width: number,
	rows: number,
): {specs: ChartSpec[]; grid: ChartGrid} | null {
	const merged = mergeGpus(specs);
	const candidates = [[...specs], merged, merged.filter(s => s.id !== 'swap'), merged.slice(0, 1)];
	for (const minPlotRows of [READABLE_PLOT_ROWS, 1]) {
		for (const candidate of candidates) {
			const grid = chartGrid(candidate.length, width, rows, minPlotRows);
			if (grid) return {specs: candidate, grid};
		}
	}
	return null;
}

function title(window: HistoryWindow, width: number): string {
	const full = `HISTORY ${windowLabel(window)} · w window · ▲ save  ! alert  ✕ exit`;
	return full.length <= width ? full : `HISTORY ${windowLabel(window)} · w window`;
}

/**
 * RAM, swap and the GPUs over the chosen window as braille charts with their thresholds, the saves,
 * alerts and exits marked on the time axis; with fewer rows, one block-character line per metric.
 */
function HistoryPane({metrics, series, markers, window, from, to, width, height}: Props) {
	if (height <= 0) return null;
	const specs = chartSpecs(metrics, series);
	const arranged = height >= 2 ? arrange(specs, width, height - 1) : null;
	if (!arranged) {
		const strips = mergeGpus(specs);
		const lines = [
			...(height > strips.length
				? [
						<Line key="title" width={width}>
							{title(window, width)}
						</Line>,
					]
				: []),
			...strips.map(spec => (
				<Line key={spec.id} width={width}>
					{stripLine(spec, from, to, width)}
				</Line>
			)),
		].slice(0, height);
		return (
			<Box flexDirection="column" width={width} height={height}>
				{lines}
			</Box>
		);
	}
	const {grid} = arranged;
	const gridRows = grid.heights.map((_, r) => arranged.specs.slice(r * grid.columns, (r + 1) * grid.columns));
	return (
		<Box flexDirection="column" width={width} height={height}>
			<Text bold wrap="truncate-end">
				{title(window, width)}
			</Text>
			{gridRows.map((row, r) => (
				<Box key={row.map(s => s.id).join()} columnGap={GAP} width={width} height={grid.heights[r]}>
					{row.map((spec, c) => (
						<Chart
							key={spec.id}
							spec={spec}
							markers={markersFor(spec, markers)}
							from={from}
							to={to}
							width={grid.widths[c]!}
							height={grid.heights[r]!}
						/>
					))}
				</Box>
			))}
		</Box>
	);
}

const Memo = React.memo(HistoryPane);
export default Memo;

export const historyPane: PaneDefinition = {
	id: 'history',
	wideFrom: 0,
	firstRows: 0,
	// Whatever the other panes do not want: the history is what a tall terminal is for.
	spare: true,
	need: (_data, room): Need => ({min: 0, want: room.budget}),
	render: ({snapshot, charts}, box) =>
		charts ? (
			<Memo
				metrics={snapshot.metrics}
				series={charts.series}
				markers={charts.markers}
				window={charts.window}
				from={charts.from}
				to={charts.to}
				width={box.width}
				height={box.height}
			/>
		) : null,
};
