import {afterEach, describe, expect, test} from 'vitest';
import {Box} from 'ink';
import {cleanup} from 'ink-testing-library';
import {computeLayout, GAP} from '../../src/ui/layout.js';
import MemoryPane from '../../src/ui/panes/MemoryPane.js';
import RanksPane from '../../src/ui/panes/RanksPane.js';
import CheckpointsPane from '../../src/ui/panes/CheckpointsPane.js';
import AlertsPane from '../../src/ui/panes/AlertsPane.js';
import KeyBar from '../../src/ui/widgets/KeyBar.js';
import type {Alert, CheckpointIndex, GpuState, MetricStatus, RankSet} from '../../src/core/types.js';
import {gpu, hostMemory} from '../helpers/snapshots.js';
import {alert, checkpoint, checkpointIndex, expectFits, frameLines, NOW, rankSet, renderOnTerminal, status} from './fixtures.js';

// The contract between computeLayout and the panes: laid out as the layout says, the whole
// screen stays within rows − 1 lines and the terminal's width, whatever there is to show.

afterEach(cleanup);

interface Data {
	readonly gpu: GpuState;
	readonly ranks: RankSet | null;
	readonly index: CheckpointIndex | null;
	readonly alerts: readonly Alert[];
}

function data(gpus: number, ranks: number | null, checkpoints: number | null, alerts: number): Data {
	return {
		gpu: gpus === 0 ? {status: 'absent', reason: 'nvidia-smi not found on PATH'} : {status: 'ok', gpus: Array.from({length: gpus}, (_, i) => gpu(i, (i * 13) % 100)), sampledAt: NOW, warning: null},
		ranks: ranks === null ? null : rankSet(ranks),
		index: checkpoints === null ? null : checkpointIndex({checkpoints: Array.from({length: checkpoints}, (_, i) => checkpoint(100 * (i + 1), checkpoints - i, {status: i === checkpoints - 1 ? 'partial' : 'complete'}))}),
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

/** A stand-in for the app's screen: the panes stacked (or checkpoints and alerts side by side) as the layout says. */
function Screen({columns, rows, d}: {readonly columns: number; readonly rows: number; readonly d: Data}) {
	const layout = computeLayout(columns, rows, {
		gpus: d.gpu.status === 'ok' ? d.gpu.gpus.length : 0,
		ranks: d.ranks?.ranks.length ?? 0,
		checkpoints: d.index?.checkpoints.length ?? 0,
		alerts: d.alerts.length,
		ranksAvailable: d.ranks !== null && d.ranks.ranks.length > 0,
		checkpointsAvailable: d.index !== null,
		checkpointStatus: true,
	});
	if (layout.tooSmall) throw new Error('too small');
	const lower = [
		<CheckpointsPane key="c" index={d.index} now={NOW} status={{text: 'waiting for checkpoint…', level: 'ok'}} {...layout.checkpoints} />,
		<AlertsPane key="a" alerts={d.alerts} now={NOW} {...layout.alerts} />,
	];
	return (
		<Box flexDirection="column" width={columns}>
			<MemoryPane host="node1" memory={hostMemory(78, 10)} memoryError={null} gpu={d.gpu} metrics={metrics} history={{ram: [50, 60, 78]}} now={NOW} {...layout.memory} />
			<RanksPane ranks={d.ranks} error={null} cursor={(d.ranks?.ranks.length ?? 1) - 1} marked={new Set([10_001])} {...layout.ranks} />
			{layout.split ? <Box columnGap={GAP}>{lower}</Box> : lower}
			<KeyBar hints={hints} width={layout.keyBar.width} />
		</Box>
	);
}

const sizes = [
	[60, 15],
	[80, 24],
	[100, 30],
	[120, 40],
	[200, 60],
] as const;

const datasets = {
	heavy: data(16, 64, 50, 50),
	typical: data(1, 8, 5, 3),
	empty: data(0, null, null, 0),
	'no ranks found': data(2, 0, 0, 1),
};

describe('a whole screen', () => {
	for (const [name, d] of Object.entries(datasets)) {
		test.each(sizes)(`${name} data at %i×%i: within rows − 1 lines and the width, every pane there`, (columns, rows) => {
			const {lastFrame} = renderOnTerminal(<Screen columns={columns} rows={rows} d={d} />, columns);
			const lines = expectFits(lastFrame(), columns, rows - 1);
			const frame = lastFrame()!;
			expect(lines[0]).toMatch(/^MEMORY node1/);
			expect(frame).toMatch(/^RANKS/m);
			expect(frame).toMatch(/CHECKPOINTS/);
			expect(frame).toMatch(/ALERTS/);
			expect(lines.at(-1)).toMatch(/^q quit/);
		});
	}

	test('at 80×24 a typical job is on screen in full', () => {
		const {lastFrame} = renderOnTerminal(<Screen columns={80} rows={24} d={data(1, 8, 3, 2)} />, 80);
		const frame = lastFrame()!;
		expect(frame.split('\n')).toHaveLength(23);
		for (let rank = 0; rank < 8; rank++) expect(frame).toContain(` ${10_000 + rank} `);
		for (const step of [100, 200, 300]) expect(frame).toMatch(new RegExp(`^step +${step} `, 'm'));
		expect(frame).toContain('» waiting for checkpoint…');
		expect(frame).toContain('ALERTS 2 level changes\n');
		expect(frame).not.toMatch(/more|older/);
	});

	test('at 200 columns checkpoints and alerts sit side by side, 2 columns apart', () => {
		const {lastFrame} = renderOnTerminal(<Screen columns={200} rows={40} d={datasets.typical} />, 200);
		const lines = frameLines(lastFrame());
		const header = lines.find(line => line.startsWith('CHECKPOINTS'))!;
		const layout = computeLayout(200, 40, {gpus: 1, ranks: 8, checkpoints: 5, alerts: 3, ranksAvailable: true, checkpointsAvailable: true, checkpointStatus: true});
		if (layout.tooSmall) throw new Error('too small');
		expect(header.indexOf('ALERTS')).toBe(layout.checkpoints.width + GAP);
		const row = lines.find(line => line.startsWith('step 500'))!;
		expect(row).toMatch(/checkpoint_step_500 +\d\d:\d\d:\d\d ▲ WARN ram/);
	});
});
