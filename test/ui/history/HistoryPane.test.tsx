import {afterEach, describe, expect, test} from 'vitest';
import {cleanup} from 'ink-testing-library';
import type {Marker} from '../../../src/core/markers.js';
import type {MetricStatus} from '../../../src/core/types.js';
import HistoryPane from '../../../src/ui/history/HistoryPane.js';
import type {Series} from '../../../src/ui/history/chart-specs.js';
import {expectFits, NOW, renderOnTerminal, status} from '../fixtures.js';

afterEach(cleanup);

const FROM = NOW - 300_000;
/** RAM climbing from 40 % to 90 % over the window, crossing its 85 % threshold near the end. */
const climbing = Array.from({length: 300}, (_, i) => ({time: FROM + i * 1000, value: 40 + i / 6}));
const markers: Marker[] = [
	{time: NOW - 150_000, kind: 'save', level: 'ok'},
	{time: NOW - 30_000, kind: 'alert', level: 'critical', metric: 'ram'},
	{time: NOW - 1000, kind: 'exit', level: 'critical'},
];

function gpus(count: number): {metrics: Record<string, MetricStatus>; series: Record<string, typeof climbing>} {
	const metrics: Record<string, MetricStatus> = {ram: status(89.8, 'critical', 85)};
	const series: Record<string, typeof climbing> = {ram: climbing};
	for (let i = 0; i < count; i++) {
		metrics[`gpu${i}`] = status(20 + i * 8, i === 7 ? 'warn' : 'ok', 90);
		series[`gpu${i}`] = climbing.map(p => ({time: p.time, value: Math.min(100, (20 + i * 8) * (p.value / 90))}));
	}
	return {metrics, series};
}

function draw(width: number, height: number, metrics: Record<string, MetricStatus>, series: Series) {
	const {lastFrame} = renderOnTerminal(
		<HistoryPane
			metrics={metrics}
			series={series}
			markers={markers}
			window="5m"
			from={FROM}
			to={NOW}
			width={width}
			height={height}
		/>,
		width,
	);
	return {frame: lastFrame() ?? '', lines: expectFits(lastFrame(), width, height)};
}

describe('HistoryPane', () => {
	test('a chart per metric: the threshold crossed, the save, the alert and the exit on the time axis', () => {
		const {frame, lines} = draw(120, 16, {ram: status(89.8, 'critical', 85)}, {ram: climbing});
		expect(lines).toHaveLength(16);
		expect(lines[0]).toBe('HISTORY last 5 min · w window · ▲ save  ! alert  ✕ exit');
		expect(lines[1]).toMatch(/^RAM 89\.8% · max 89\.8% in window/);
		expect(frame).toMatch(/^ 85%┤[⠀-⣿]*┄+/m);
		expect(lines[2]).toMatch(/^100%┤/);
		expect(lines[4]).toMatch(/^ {4}│/);
		const rule = lines.at(-2)!;
		expect(rule.indexOf('▲')).toBeLessThan(rule.indexOf('!'));
		expect(rule.indexOf('!')).toBeLessThan(rule.indexOf('✕'));
		// The save half-way: its mark in the middle of the plot (5 columns of y scale before it).
		expect(Math.abs(rule.indexOf('▲') - (5 + Math.floor(115 / 2)))).toBeLessThanOrEqual(1);
		expect(lines.at(-1)).toMatch(/\d\d:\d\d/);
	});

	test('8 GPUs with room: a chart each, side by side in a grid', () => {
		const {metrics, series} = gpus(8);
		const {frame, lines} = draw(200, 31, metrics, series);
		expect(lines).toHaveLength(31);
		for (let i = 0; i < 8; i++) expect(frame).toContain(`GPU${i} `);
		expect(frame).not.toContain('GPU highest');
	});

	test('8 GPUs short of rows: one chart of the highest GPU, saying which one it is', () => {
		const {metrics, series} = gpus(8);
		const {frame, lines} = draw(120, 12, metrics, series);
		expect(lines).toHaveLength(12);
		expect(frame).toMatch(/GPU highest of 8 76\.0% \(GPU7\)/);
		expect(frame).toContain('RAM 89.8%');
	});

	test('too few rows for a chart: a line per metric with its window in blocks, every row used', () => {
		const {metrics, series} = gpus(2);
		const {lines} = draw(80, 3, metrics, series);
		expect(lines).toHaveLength(3);
		expect(lines[0]).toMatch(/^HISTORY/);
		expect(lines[1]).toMatch(/^RAM +[▁-█ ]+ +89\.8%$/);
		expect(lines[2]).toMatch(/^GPU max +[▁-█ ]+ +28\.0%$/);
		expect(draw(80, 1, metrics, series).lines).toHaveLength(1);
	});

	test("an alert is marked on its own metric's chart only; saves and exits on every chart", () => {
		const {metrics, series} = gpus(1);
		const {frame} = draw(200, 14, metrics, series);
		const rules = frame.split('\n').filter(line => line.includes('└'));
		// RAM and GPU0 side by side: one rule line holding both charts' axes.
		expect(rules).toHaveLength(1);
		const line = rules[0]!;
		const second = line.indexOf('└', line.indexOf('└') + 1);
		const [ram, gpu] = [line.slice(0, second), line.slice(second)];
		expect(ram).toMatch(/▲.*!.*✕/);
		expect(gpu).toMatch(/▲/);
		expect(gpu).toMatch(/✕/);
		expect(gpu).not.toContain('!');
	});
});
