import React from 'react';
import {Box, Text} from 'ink';
import type {ScreenData} from '../screen-data.js';
import {gpuColumnsFor, MEMORY_WIDE, memoryNeed, sparklineWidthFor} from './memory-layout.js';
import {GAP, type PaneDefinition} from './pane.js';
import Line from '../widgets/Line.js';
import type {GpuState, HostCpu, HostMemory, MetricId, MetricStatus} from '../../core/types.js';
import Gauge from '../widgets/Gauge.js';
import {padEnd} from '../../format/columns.js';
import GpuHealthMark from './GpuHealthMark.js';
import {
	cpuText,
	deviceRows,
	gpuHealthMarks,
	healthColumnWidth,
	hiddenGpusText,
	hiddenHealthText,
	hostLines,
	ramLimitText,
	sensorColumns,
	type GaugeRow,
	type HostLine,
	type SensorColumns,
} from './memory-rows.js';
import {gpuStateWords} from '../../format/gpu-state.js';
import type {Missing} from '../../metrics/metric.js';
import type {GpuMemoryUnseen, HostConsumers} from '../../core/memory-types.js';
import MemoryNote from './MemoryNote.js';
import {withNoteRows} from './memory-notes.js';

export interface Props {
	/** Host name, shown in the title. */
	readonly host: string;
	/** Last host memory reading; null before the first. */
	readonly memory: HostMemory | null;
	/** Host CPU and load, on the title line; absent or null: not shown. */
	readonly cpu?: HostCpu | null;
	/** Why the last memory read failed, if it did. */
	readonly memoryError: string | null;
	readonly gpu: GpuState;
	/** Levels, peaks and thresholds per metric (`ram`, `swap`, `gpu0`…), as the Monitor judged them. */
	readonly metrics: Readonly<Record<MetricId, MetricStatus>>;
	/** Recent percents per metric, oldest first, for the sparklines. */
	readonly history?: Readonly<Record<MetricId, readonly number[]>>;
	/** Epoch ms of the snapshot: the GPU reader's retry countdown. */
	readonly now: number;
	readonly width: number;
	/** Lines available; the pane never draws more. */
	readonly height: number;
	/** Narrow form: no sparklines. */
	readonly compact?: boolean;
	/** GPU gauges per line (layout packs many GPUs). */
	readonly gpuColumns?: number;
	/** Sparkline columns per gauge when there is room. */
	readonly sparklineWidth?: number;
	/** GPU memory no visible process accounts for: a note under the GPU gauges; absent or null: none. */
	readonly gpuUnseen?: GpuMemoryUnseen | null;
	/** The host's top consumers that are not the job, while the host is short: a note under the host lines. */
	readonly hostConsumers?: HostConsumers | null;
}

const NO_HISTORY: Readonly<Record<MetricId, readonly number[]>> = {};
const NO_SENSORS: SensorColumns = {utilization: false, temperature: false, power: false};

/**
 * The sensor props of one gauge: for each column the pane has, the GPU's value (null where it has none), or null on a
 * RAM or swap line (a blank column, so its bar lines up with the GPUs'); undefined where the pane has no such column.
 */
function sensorProps(row: GaugeRow, columns: SensorColumns) {
	const value = (has: boolean, known: number | null | undefined) => (has ? (known ?? null) : undefined);
	return {
		utilizationPercent: value(columns.utilization, row.sensors?.utilizationPercent),
		temperatureC: value(columns.temperature, row.sensors?.temperatureC),
		powerDrawW: value(columns.power, row.sensors?.powerDrawW),
		powerLimitW: value(columns.power, row.sensors?.powerLimitW),
	};
}

/** What a host line without a gauge says: `none` (no swap here), `n/a: EACCES /proc/meminfo`, `n/a: no reading yet`. */
function missingText(missing: Missing, memoryError: string | null): string {
	if (missing === 'none') return 'none';
	return `n/a: ${(missing === 'failed' ? memoryError : null) ?? 'no reading yet'}`;
}

/**
 * The registry's host metrics (RAM, swap) and every device (GPU) against their thresholds. Lines, from the top,
 * while `height` lasts: title, a line per host metric, device lines (several gauges a line when `gpuColumns` > 1;
 * the last line says how many GPUs did not fit and the worst of them). A failing or absent GPU reader shows its
 * reason in place of the GPU gauges.
 */
function MemoryPane(props: Props) {
	const {memory, metrics, width, height, now} = props;
	const history = props.history ?? NO_HISTORY;
	const sparklineWidth = props.compact ? 0 : (props.sparklineWidth ?? 0);
	const gpuColumns = Math.max(1, Math.floor(props.gpuColumns ?? 1));
	if (height <= 0) return null;

	const source = {memory, memoryError: props.memoryError, cpu: props.cpu, gpu: props.gpu};
	const hosts = hostLines(source, metrics);
	const gpus = deviceRows(source, metrics);
	const labelWidth = Math.max(4, ...gpus.map(g => g.label.length));
	// Title first to go when short of rows, then the host lines after the first: RAM and the GPUs are what jobs die of.
	const showTitle = height >= 4;
	const body = height - (showTitle ? 1 : 0);
	const shownHosts = hosts.slice(0, 1 + (body >= 3 ? Math.min(hosts.length - 1, body - 2) : 0));
	const gpuRows = Math.max(0, body - shownHosts.length);
	// The GPUs' sensor columns; the host lines keep them blank when the GPU gauges are full lines beneath them.
	const gpuSensors = gpuRows > 0 ? sensorColumns(gpus) : NO_SENSORS;
	const hostSensors = gpuColumns === 1 ? gpuSensors : NO_SENSORS;
	const gauge = (row: GaugeRow, gaugeWidth: number, sensors: SensorColumns) => (
		<Gauge
			key={row.metric}
			label={row.label}
			labelWidth={labelWidth}
			percent={row.percent}
			level={row.level}
			threshold={row.threshold}
			peak={row.peak}
			headroomBytes={row.headroomBytes}
			usedBytes={row.usedBytes}
			totalBytes={row.totalBytes}
			history={history[row.metric]}
			sparklineWidth={sparklineWidth}
			width={gaugeWidth}
			stale={row.stale}
			{...sensorProps(row, sensors)}
		/>
	);
	const hostLine = (line: HostLine) =>
		'row' in line ? (
			gauge(line.row, width, hostSensors)
		) : (
			<Line key={line.label} width={width}>
				{`${padEnd(line.label, labelWidth)} ${missingText(line.missing, props.memoryError)}`}
			</Line>
		);

	const cpuLine = cpuText(props.cpu);
	// Before the notes and the CPU: the title is cut at the right edge, and this says what the RAM gauge measures.
	const limitLine = ramLimitText(memory);
	const {problem, warning} = gpuStateWords(props.gpu, now);
	const notes: string[] = [];
	if (props.memoryError) notes.push(`memory read failed: ${props.memoryError}`);
	if (warning !== null) notes.push(warning);

	// A GPU's health problems (throttling, ECC errors…) at the end of its gauge; the gauge gives up those columns.
	const healthMarks = gpuHealthMarks(props.gpu);
	const gpuGauge = (row: GaugeRow, gaugeWidth: number) => {
		const healthWidth = healthColumnWidth(healthMarks, gaugeWidth);
		if (healthWidth === 0) return gauge(row, gaugeWidth, gpuSensors);
		return (
			<Box key={row.metric} width={gaugeWidth}>
				{gauge(row, gaugeWidth - healthWidth, gpuSensors)}
				<GpuHealthMark mark={healthMarks.get(row.metric) ?? null} width={healthWidth} />
			</Box>
		);
	};
	const gpuLines: React.ReactNode[] = [];
	if (gpuRows > 0 && problem !== null) {
		gpuLines.push(
			<Line key="gpu-status" width={width}>
				{`${padEnd('GPU', labelWidth)} ${problem.what}${problem.why === null ? '' : `: ${problem.why}`}`}
			</Line>,
		);
	} else if (gpuRows > 0) {
		const lineCount = Math.ceil(gpus.length / gpuColumns);
		const fullLines = lineCount <= gpuRows ? lineCount : gpuRows - 1;
		const gaugeWidth = Math.floor((width - GAP * (gpuColumns - 1)) / gpuColumns);
		for (let line = 0; line < fullLines; line++) {
			const group = gpus.slice(line * gpuColumns, (line + 1) * gpuColumns);
			gpuLines.push(
				<Box key={`gpus-${line}`} width={width} columnGap={GAP}>
					{group.map(g => gpuGauge(g, gpuColumns === 1 ? width : gaugeWidth))}
				</Box>,
			);
		}
		const hidden = gpus.slice(fullLines * gpuColumns);
		if (hidden.length > 0) {
			gpuLines.push(
				<Line key="gpus-hidden" width={width}>
					{hiddenGpusText(hidden, fullLines > 0) + hiddenHealthText(hidden, healthMarks)}
				</Line>,
			);
		}
	}

	const noteProps = {unseen: props.gpuUnseen, consumers: props.hostConsumers, width, spare: gpuRows - gpuLines.length};
	return (
		<Box flexDirection="column" width={width}>
			{showTitle ? (
				<Line width={width}>
					<Text bold>MEMORY</Text>
					{` ${props.host}`}
					{limitLine ? ` · ${limitLine}` : ''}
					{notes.length > 0 ? ` · ${notes.join(' · ')}` : ''}
					{cpuLine ? ` · ${cpuLine}` : ''}
				</Line>
			) : null}
			{shownHosts.map(hostLine)}
			<MemoryNote note="consumers" {...noteProps} />
			{gpuLines}
			<MemoryNote note="unseen" {...noteProps} />
		</Box>
	);
}

const Memo = React.memo(MemoryPane);
export default Memo;

function gpuCount(data: ScreenData): number {
	return data.snapshot.gpu.status === 'ok' ? data.snapshot.gpu.gpus.length : 0;
}

export const memoryPane: PaneDefinition = {
	id: 'memory',
	wideFrom: MEMORY_WIDE,
	firstRows: Number.POSITIVE_INFINITY,
	need: (data, room) =>
		withNoteRows(memoryNeed(gpuCount(data), gpuColumnsFor(gpuCount(data), room.width, room.budget)), data.snapshot),
	render: (data, box) => (
		<Memo
			host={data.host}
			memory={data.snapshot.memory}
			cpu={data.snapshot.cpu}
			memoryError={data.snapshot.memoryError}
			gpu={data.snapshot.gpu}
			metrics={data.snapshot.metrics}
			history={data.history}
			now={data.snapshot.time}
			width={box.width}
			height={box.height}
			compact={box.compact}
			gpuColumns={gpuColumnsFor(gpuCount(data), box.width, box.budget)}
			sparklineWidth={sparklineWidthFor(box.width)}
			gpuUnseen={data.snapshot.gpuUnseen}
			hostConsumers={data.snapshot.hostConsumers}
		/>
	),
};
