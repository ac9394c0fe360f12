import React from 'react';
import {Box, Text} from 'ink';
import type {Level} from '../../core/types.js';
import {padEnd, padStart} from '../../format/columns.js';
import {LEVEL_COLOR, LEVEL_TAG} from '../../format/levels.js';
import {formatBytes, formatPercent, formatThreshold} from '../../format/units.js';
import {powerText, temperatureText, utilizationText} from '../../format/gpu-sensors.js';
import {usePaint} from '../color.js';
import {barSegments, OPTIONAL_PARTS, planGauge, type OptionalPart, VALUE_WIDTH} from './gauge-plan.js';
import {sparkline} from './sparkline.js';

export interface Props {
	/** What is measured: `RAM`, `swap`, `GPU0`. */
	readonly label: string;
	/** Columns for the label, so that the bars of a pane line up; default the label's length. */
	readonly labelWidth?: number;
	/** 0–100; null when unknown (drawn as an empty bar and `n/a`). */
	readonly percent: number | null;
	readonly level: Level;
	/** Critical threshold in percent, marked on the bar with `┊`; null draws no mark. */
	readonly threshold: number | null;
	// The optional parts: left out (undefined), the gauge has no such column; null keeps the
	// column blank, so that a gauge with an unknown value still lines up with its neighbours.
	/** Highest percent since traintop started. */
	readonly peak?: number | null;
	/** Bytes left before the threshold is reached; negative when over it. */
	readonly headroomBytes?: number | null;
	/** Used and total bytes, shown as `46.1 GiB/64.0 GiB` when there is room. */
	readonly usedBytes?: number | null;
	readonly totalBytes?: number | null;
	/** Recent percents, oldest first, for the sparkline. */
	readonly history?: readonly number[];
	/** A GPU's utilisation in percent (`util 87%`), at the end of the line after the sparkline. */
	readonly utilizationPercent?: number | null;
	/** A GPU's temperature in °C (`64°C`). */
	readonly temperatureC?: number | null;
	/** A GPU's power draw in W (`312/700 W` with `powerLimitW`); its column is there when this one is not undefined. */
	readonly powerDrawW?: number | null;
	readonly powerLimitW?: number | null;
	/** Columns the sparkline gets when the line has room for it (blank until history comes); 0 for none. */
	readonly sparklineWidth?: number;
	/** Columns of the whole line; the gauge never draws wider. */
	readonly width: number;
	/** The last reading, kept while a read fails: the value reads `≈90.0%` and the line is dimmed. */
	readonly stale?: boolean;
}

function headroomText(bytes: number | null | undefined, threshold: number | null): string {
	if (bytes === null || bytes === undefined || threshold === null || !Number.isFinite(bytes)) return '';
	const line = formatThreshold(threshold);
	return bytes >= 0 ? `${formatBytes(bytes)} to ${line}` : `${formatBytes(-bytes)} over ${line}`;
}

function known(value: number | null | undefined): value is number {
	return value !== null && value !== undefined && Number.isFinite(value);
}

/**
 * One line: `GPU0 ██████████░░░┊░░  72.1% WARN  57.7 GiB/80.0 GiB  peak  80.2%  9.8 GiB to 85%  ▁▂▃▅  util  87%  64°C 312/700 W`.
 * The level word is always there, so the level reads without colour. Each optional part keeps
 * its columns even when its value is unknown, so the bars of a pane line up.
 */
function Gauge(props: Props) {
	const {label, percent, level, threshold, width} = props;
	const paint = usePaint();
	const labelWidth = props.labelWidth ?? label.length;
	const sparklineWidth = props.sparklineWidth ?? 0;
	const wanted = new Set<OptionalPart>(['sparkline']);
	if (props.headroomBytes !== undefined) wanted.add('headroom');
	if (props.peak !== undefined) wanted.add('peak');
	if (props.usedBytes !== undefined || props.totalBytes !== undefined) wanted.add('usage');
	if (props.utilizationPercent !== undefined) wanted.add('utilization');
	if (props.temperatureC !== undefined) wanted.add('temperature');
	if (props.powerDrawW !== undefined) wanted.add('power');
	const plan = planGauge(width, labelWidth, sparklineWidth, wanted);
	const color = paint(LEVEL_COLOR[level]);
	const over = known(props.headroomBytes) && props.headroomBytes < 0;
	const usage =
		known(props.usedBytes) && known(props.totalBytes)
			? `${formatBytes(props.usedBytes)}/${formatBytes(props.totalBytes)}`
			: '';
	const peak = known(props.peak) ? `peak ${padStart(formatPercent(props.peak), VALUE_WIDTH)}` : '';
	const slot = (part: OptionalPart, text: string, align: 'left' | 'right' = 'left') => {
		const {width: partWidth, gap} = OPTIONAL_PARTS[part];
		return `${' '.repeat(gap)}${align === 'right' ? padStart(text, partWidth) : padEnd(text, partWidth)}`;
	};
	return (
		<Box width={width}>
			<Text wrap="truncate-end" dimColor={props.stale === true}>
				{padEnd(label, labelWidth)}{' '}
				{barSegments(percent, threshold, plan.barWidth).map((segment, i) => (
					<Text key={i} color={segment.filled ? color : undefined} dimColor={!segment.filled}>
						{segment.text}
					</Text>
				))}{' '}
				<Text color={color} bold={level !== 'ok'}>
					{padStart(`${props.stale ? '≈' : ''}${formatPercent(percent)}`, VALUE_WIDTH)} {LEVEL_TAG[level]}
				</Text>
				{plan.parts.has('usage') ? slot('usage', usage, 'right') : ''}
				{plan.parts.has('peak') ? <Text dimColor>{slot('peak', peak)}</Text> : ''}
				{plan.parts.has('headroom') ? (
					<Text color={over ? paint('red') : undefined}>
						{slot('headroom', headroomText(props.headroomBytes, threshold))}
					</Text>
				) : (
					''
				)}
				{plan.parts.has('sparkline') ? (
					<Text color={color}>{`  ${sparkline(props.history ?? [], sparklineWidth, 100)}`}</Text>
				) : (
					''
				)}
				{plan.parts.has('utilization') ? slot('utilization', utilizationText(props.utilizationPercent, 4)) : ''}
				{plan.parts.has('temperature') ? slot('temperature', temperatureText(props.temperatureC), 'right') : ''}
				{plan.parts.has('power') ? slot('power', powerText(props.powerDrawW, props.powerLimitW)) : ''}
			</Text>
		</Box>
	);
}

export default React.memo(Gauge);
