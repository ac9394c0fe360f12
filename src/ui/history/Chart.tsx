import React from 'react';
import {Box, Text} from 'ink';
import type {Marker} from '../../core/markers.js';
import {LEVEL_COLOR} from '../../format/levels.js';
import {usePaint} from '../color.js';
import {type CellStyle, plotArea, runsOf, thresholdRowFromTop} from '../widgets/braille-plot.js';
import {type AxisStyle, markerRule, tickRow, timeTicks} from '../widgets/time-axis.js';
import {CHART_FRAME_ROWS} from './chart-grid.js';
import {chartTop} from './chart-scale.js';
import type {ChartSpec} from './chart-specs.js';

export interface Props {
	readonly spec: ChartSpec;
	readonly markers: readonly Marker[];
	/** Epoch ms at the left and right edges. */
	readonly from: number;
	readonly to: number;
	readonly width: number;
	/** Lines, the title and the time axis included. */
	readonly height: number;
}

/** Columns of the y scale: `100%` and its axis line. */
const SCALE = 5;

const PLOT_COLOR: Readonly<Record<CellStyle, string | null>> = {
	data: 'cyan',
	over: 'red',
	threshold: 'red',
	empty: null,
};
const AXIS_COLOR: Readonly<Record<AxisStyle, string | null>> = {
	rule: null,
	save: 'green',
	ok: null,
	warn: 'yellow',
	critical: 'red',
	exit: 'magenta',
};

function percent(value: number | null): string {
	return value === null ? 'n/a' : `${value.toFixed(1)}%`;
}

/** `100%`, ` 85%`, `2.5%`: four columns, one decimal only where the whole number would say too little. */
function scaleText(value: number): string {
	const text = value >= 10 || Number.isInteger(value) ? `${Math.round(value)}%` : `${value.toFixed(1)}%`;
	return text.padStart(SCALE - 1).slice(-(SCALE - 1));
}

/** The y scale's label for a plot row: the threshold where its line is, else the top and 0 at the bottom. */
function scaleLabel(
	row: number,
	rows: number,
	top: number,
	thresholdRow: number | null,
	threshold: number | null,
): string {
	if (row === thresholdRow && threshold !== null) return scaleText(threshold);
	if (row === 0 && rows > 1) return scaleText(top);
	// Tall charts get their middle labelled too.
	if (rows >= 7 && row === thresholdRowFromTop(top / 2, rows, top) && row !== thresholdRow) return scaleText(top / 2);
	if (row === rows - 1 && rows > 1) return scaleText(0);
	return '    ';
}

/** The label and the y axis: a tick where a value is labelled, the line elsewhere. */
function axisCell(label: string): string {
	return `${label}${label.trim() ? '┤' : '│'}`;
}

/** One metric over the window: title, a braille area with the threshold line and y scale, the marks and clock times. */
function Chart({spec, markers, from, to, width, height}: Props) {
	const paint = usePaint();
	const plotRows = Math.max(1, height - CHART_FRAME_ROWS);
	const plotWidth = Math.max(1, width - SCALE);
	const windowMax = spec.points.filter(p => p.time >= from).reduce((m, p) => Math.max(m, p.value), -1);
	const top = chartTop(spec.threshold, windowMax);
	const rows = plotArea({
		points: spec.points,
		from,
		to,
		width: plotWidth,
		height: plotRows,
		max: top,
		threshold: spec.threshold,
	});
	const thresholdRow = thresholdRowFromTop(spec.threshold, plotRows, top);
	const rule = runsOf(markerRule(markers, from, to, plotWidth));
	const color = (c: string | null) => (c === null ? undefined : paint(c));
	return (
		<Box flexDirection="column" width={width}>
			<Text wrap="truncate-end">
				<Text bold color={paint(LEVEL_COLOR[spec.level])}>
					{spec.label}
				</Text>
				{` ${percent(spec.now)}${spec.note ? ` (${spec.note})` : ''}${windowMax >= 0 ? ` · max ${percent(windowMax)} in window` : ''}`}
			</Text>
			{rows.map((row, i) => (
				<Text key={i} wrap="truncate-end">
					<Text dimColor color={i === thresholdRow ? paint('red') : undefined}>
						{axisCell(scaleLabel(i, plotRows, top, thresholdRow, spec.threshold))}
					</Text>
					{runsOf(row).map((run, j) => (
						<Text key={j} color={color(PLOT_COLOR[run.style])} dimColor={run.style === 'threshold'}>
							{run.text}
						</Text>
					))}
				</Text>
			))}
			<Text wrap="truncate-end">
				{'    └'}
				{rule.map((run, j) => (
					<Text
						key={j}
						color={color(AXIS_COLOR[run.style])}
						dimColor={run.style === 'rule'}
						bold={run.style !== 'rule'}
					>
						{run.text}
					</Text>
				))}
			</Text>
			<Text wrap="truncate-end" dimColor>
				{' '.repeat(SCALE) + tickRow(timeTicks(from, to, plotWidth), plotWidth)}
			</Text>
		</Box>
	);
}

export default React.memo(Chart);
