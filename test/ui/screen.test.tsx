import {afterEach, describe, expect, test} from 'vitest';
import type React from 'react';
import {cleanup} from 'ink-testing-library';
import {computeLayout} from '../../src/ui/layout.js';
import {type BoxPlace, boxWidthFor, placeBox} from '../../src/ui/overlay-box.js';
import {GAP} from '../../src/ui/panes/pane.js';
import Screen from '../../src/ui/screen.js';
import type {ScreenData} from '../../src/ui/screen-data.js';
import TextBox from '../../src/ui/widgets/TextBox.js';
import type {Alert, CheckpointIndex, GpuState, MetricStatus, RankSet} from '../../src/core/types.js';
import {gpu, hostMemory} from '../helpers/snapshots.js';
import {
	alert,
	checkpoint,
	checkpointIndex,
	expectFits,
	frameLines,
	NOW,
	rankSet,
	renderOnTerminal,
	status,
} from './fixtures.js';

// The contract between computeLayout, the pane registry and the panes: the app's own <Screen>,
// laid out as the layout says, stays within rows − 1 lines and the terminal's width, whatever
// there is to show.

afterEach(cleanup);

interface Data {
	readonly gpu: GpuState;
	readonly ranks: RankSet | null;
	readonly index: CheckpointIndex | null;
	readonly alerts: readonly Alert[];
}

function data(gpus: number, ranks: number | null, checkpoints: number | null, alerts: number): Data {
	return {
		gpu:
			gpus === 0
				? {status: 'absent', reason: 'nvidia-smi not found on PATH'}
				: {
						status: 'ok',
						gpus: Array.from({length: gpus}, (_, i) => gpu(i, (i * 13) % 100)),
						sampledAt: NOW,
						warning: null,
					},
		ranks: ranks === null ? null : rankSet(ranks),
		index:
			checkpoints === null
				? null
				: checkpointIndex({
						checkpoints: Array.from({length: checkpoints}, (_, i) =>
							checkpoint(100 * (i + 1), checkpoints - i, {status: i === checkpoints - 1 ? 'partial' : 'complete'}),
						),
					}),
		alerts: Array.from({length: alerts}, (_, i) => alert(alerts - i, 'ram', 'ok', 'warn', 80)),
	};
}

const metrics: Record<string, MetricStatus> = {ram: status(78, 'warn', 85), swap: status(10, 'ok', 50)};
const hints = [
	{key: 'q', label: 'quit'},
	{key: '↑↓', label: 'move'},
	{key: 'space', label: 'mark'},
	{key: 's', label: 'save'},
	{key: 'e', label: 'emergency'},
	{key: '?', label: 'help'},
];

function screenData(d: Data): ScreenData {
	return {
		snapshot: {
			time: NOW,
			host: 'node1',
			tick: 1,
			memory: hostMemory(78, 10),
			memoryError: null,
			gpu: d.gpu,
			gpuProcesses: {processes: [], sampledAt: null, error: null},
			ranks: d.ranks,
			ranksError: null,
			checkpoints: d.index,
			metrics,
			newAlerts: [],
			recentAlerts: d.alerts,
			events: [],
			recentEvents: [],
		},
		host: 'node1',
		history: {ram: [50, 60, 78]},
		charts: {
			window: '5m',
			from: NOW - 300_000,
			to: NOW,
			// RAM climbing from 50 % over the last four minutes, past its 85 % threshold; a save and the alert marked.
			series: {ram: Array.from({length: 240}, (_, i) => ({time: NOW - 240_000 + i * 1000, value: 50 + i / 6}))},
			markers: [
				{time: NOW - 120_000, kind: 'save', level: 'ok'},
				{time: NOW - 30_000, kind: 'alert', level: 'critical'},
			],
		},
		cursor: (d.ranks?.ranks.length ?? 1) - 1,
		marked: new Set([10_001]),
		saveStatus: {text: 'waiting for checkpoint…', level: 'ok'},
		actionSignals: ['SIGUSR1', 'SIGTERM'],
	};
}

/** The app's screen for this data at this size, with a box over it or none. */
function TestScreen({
	columns,
	rows,
	d,
	overlay = null,
}: {
	readonly columns: number;
	readonly rows: number;
	readonly d: Data;
	readonly overlay?: React.ReactNode;
}) {
	const screen = screenData(d);
	const layout = computeLayout(columns, rows, screen);
	if (layout.tooSmall) throw new Error('too small');
	return <Screen layout={layout} data={screen} overlay={overlay} hints={hints} />;
}

const sizes = [
	[60, 15],
	[80, 24],
	[100, 30],
	[120, 40],
	[160, 50],
	[200, 60],
	[250, 70],
] as const;

const datasets = {
	heavy: data(16, 64, 50, 50),
	typical: data(1, 8, 5, 3),
	empty: data(0, null, null, 0),
	'no ranks found': data(2, 0, 0, 1),
};

describe('a whole screen', () => {
	for (const [name, d] of Object.entries(datasets)) {
		test.each(sizes)(
			`${name} data at %i×%i: within rows − 1 lines and the width, every pane there`,
			(columns, rows) => {
				const {lastFrame} = renderOnTerminal(<TestScreen columns={columns} rows={rows} d={d} />, columns);
				const lines = expectFits(lastFrame(), columns, rows - 1);
				const frame = lastFrame()!;
				// Every row used: the history charts take what the other panes leave.
				expect(lines, frame).toHaveLength(rows - 1);
				expect(lines[0]).toMatch(/^MEMORY node1/);
				expect(frame).toMatch(/^RANKS/m);
				expect(frame).toMatch(/CHECKPOINTS/);
				expect(frame).toMatch(/ALERTS/);
				expect(lines.at(-1)).toMatch(/^q quit/);
			},
		);
	}

	test('at 80×24 a typical job is on screen in full', () => {
		const {lastFrame} = renderOnTerminal(<TestScreen columns={80} rows={24} d={data(1, 8, 3, 2)} />, 80);
		const frame = lastFrame()!;
		expect(frame.split('\n')).toHaveLength(23);
		for (let rank = 0; rank < 8; rank++) expect(frame).toContain(` ${10_000 + rank} `);
		for (const step of [100, 200, 300]) expect(frame).toMatch(new RegExp(`^step +${step} `, 'm'));
		expect(frame).toContain('» waiting for checkpoint…');
		expect(frame).toContain('ALERTS 2 level changes\n');
		expect(frame).not.toMatch(/more|older/);
	});

	test('at 200 columns checkpoints and alerts sit side by side, 2 columns apart', () => {
		const {lastFrame} = renderOnTerminal(<TestScreen columns={200} rows={40} d={datasets.typical} />, 200);
		const lines = frameLines(lastFrame());
		const header = lines.find(line => line.startsWith('CHECKPOINTS'))!;
		const layout = computeLayout(200, 40, screenData(datasets.typical));
		if (layout.tooSmall) throw new Error('too small');
		expect(header.indexOf('ALERTS')).toBe(layout.boxes.checkpoints!.width + GAP);
		const row = lines.find(line => line.startsWith('step 500'))!;
		expect(row).toMatch(/checkpoint_step_500 +\d\d:\d\d:\d\d ▲ WARN ram/);
	});
});

describe('a box over the panes', () => {
	// A send's result as the app shows it: a title, a line per rank, the footer.
	const title = 'SIGUSR1 (save) to job torchrun:9999: sent 3';
	const outcomes = ['rank 0  pid 10000  sent', 'rank 1  pid 10001  sent', 'rank 2  pid 10002  sent'];
	const footer = 'Enter or Esc: close';
	const pad = (line: string, columns: number) => [...line].concat(Array(columns).fill(' ')).slice(0, columns);

	for (const place of ['centre', 'top'] as const satisfies readonly BoxPlace[]) {
		for (const name of ['heavy', 'typical'] as const) {
			test.each(sizes)(
				`${place}, over ${name} data at %i×%i: the panes drawn above and below it, none on its rows, the key bar last`,
				(columns, rows) => {
					const d = datasets[name];
					const box = (
						<TextBox title={title} lines={outcomes} footer={footer} width={columns} height={rows} place={place} />
					);
					const under = renderOnTerminal(<TestScreen columns={columns} rows={rows} d={d} />, columns).lastFrame();
					const over = renderOnTerminal(
						<TestScreen columns={columns} rows={rows} d={d} overlay={box} />,
						columns,
					).lastFrame();
					const panes = frameLines(under).slice(0, -1);
					const lines = expectFits(over, columns, rows - 1);
					expect(lines).toHaveLength(rows - 1);
					expect(lines.at(-1)).toMatch(/^q quit/);
					const at = placeBox(columns, rows, {width: boxWidthFor([title, ...outcomes, footer]), height: 7}, place);
					const inner = at.width - 4;
					const inside = [
						`╭${'─'.repeat(at.width - 2)}╮`,
						...[title, ...outcomes, footer].map(text => `│ ${text.padEnd(inner)} │`),
						`╰${'─'.repeat(at.width - 2)}╯`,
					];
					for (let row = 0; row < rows - 2; row++) {
						const seen = pad(lines[row] ?? '', columns);
						const pane = pad(panes[row] ?? '', columns);
						const boxRow = row - at.top;
						if (boxRow >= 0 && boxRow < at.height) {
							// Every cell of the box is the box's: no pane text shows through its blank cells.
							expect(seen.slice(at.left, at.left + at.width).join('')).toBe(inside[boxRow]);
							// Its rows are cleared across the screen: no piece of a pane beside its borders.
							expect(seen.slice(0, at.left).join('').trim()).toBe('');
							expect(
								seen
									.slice(at.left + at.width)
									.join('')
									.trim(),
							).toBe('');
						} else {
							expect(seen).toEqual(pane);
						}
					}
				},
			);
		}
	}

	test.each(sizes)('a result box at the top leaves the CHECKPOINTS pane in sight at %i×%i', (columns, rows) => {
		const box = <TextBox title={title} lines={outcomes} footer={footer} width={columns} height={rows} place="top" />;
		const {lastFrame} = renderOnTerminal(
			<TestScreen columns={columns} rows={rows} d={datasets.typical} overlay={box} />,
			columns,
		);
		expect(lastFrame()).toMatch(/^CHECKPOINTS 5/m);
	});
});
