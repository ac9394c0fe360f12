import {cleanup, render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import type {Snapshot} from '../../../src/core/types.js';
import NodesPane from '../../../src/ui/fleet/NodesPane.js';
import {nodeRow, type NodeRow} from '../../../src/ui/fleet/node-rows.js';
import {hostMemory} from '../../helpers/snapshots.js';
import {expectFits, NOW, rankSet, renderOnTerminal, status} from '../fixtures.js';
import {FakeFleet} from './fleet-fixtures.js';

afterEach(cleanup);

const TYPICAL: Partial<Snapshot> = {
	memory: hostMemory(40, 5),
	metrics: {ram: status(40, 'ok', 85)},
	ranks: rankSet(8),
};

function rowsOf(count: number, shape: (fleet: FakeFleet) => void = () => undefined): NodeRow[] {
	const names = Array.from({length: count}, (_, i) => `node${String(i + 1).padStart(2, '0')}`);
	const fleet = new FakeFleet(names);
	for (const name of names) fleet.hello(name).send(name, TYPICAL);
	shape(fleet);
	return fleet.current().nodes.map(node => nodeRow(node, fleet.now));
}

describe('NodesPane', () => {
	test('a title with the count by state, the header, a row per node, the cursor on its row', () => {
		const rows = rowsOf(3, fleet => fleet.lose('node03', 'agent killed by SIGKILL').at(NOW + 4000));
		const {lastFrame} = render(<NodesPane rows={rows} cursor={1} order="given" width={100} height={8} />);
		const lines = expectFits(lastFrame(), 100, 8);
		expect(lines[0]).toBe('NODES 3 nodes · 2 stale · 1 lost');
		expect(lines[1]).toMatch(/^ {2}NODE +LVL +AGENT +RAM +SWAP +GPUmax +mean +RANKS NOTE$/);
		expect(lines[2]).toMatch(/^ {2}node01 WARN stale 4 s +40\.0% +5\.0% +- +- +8$/);
		expect(lines[3]).toMatch(/^› node02 WARN stale 4 s/);
		expect(lines[4]).toMatch(/^ {2}node03 CRIT lost 4 s .* 8 agent killed by SIGKILL$/);
		expect(lines).toHaveLength(5);
	});

	test.each([
		[80, 24],
		[120, 40],
	])(
		'64 nodes at %i columns in a %i-line pane: a window around the cursor and "+N more" with the trouble hidden',
		(width, height) => {
			const rows = rowsOf(64, fleet => fleet.lose('node64', 'agent exited 255'));
			const {lastFrame} = renderOnTerminal(
				<NodesPane rows={rows} cursor={30} order="given" width={width} height={height} />,
				width,
			);
			const lines = expectFits(lastFrame(), width, height);
			expect(lines).toHaveLength(height);
			expect(lines.filter(line => /^[› ] node\d\d /.test(line))).toHaveLength(height - 3);
			expect(lines.find(line => line.startsWith('›'))).toMatch(/^› node31 /);
			const hidden = 64 - (height - 3);
			expect(lines.at(-1)).toMatch(new RegExp(`^\\+${hidden} more \\(\\d+ above, \\d+ below\\): 1 lost$`));
		},
	);

	test('worst first: the title says so; in two lines, the title and the cursor row', () => {
		const rows = rowsOf(4);
		const {lastFrame} = render(<NodesPane rows={rows} cursor={2} order="worst" width={80} height={2} />);
		const lines = expectFits(lastFrame(), 80, 2);
		expect(lines[0]).toBe('NODES 4 nodes · 4 connected · worst first');
		expect(lines[1]).toMatch(/^› node03 ok +connected/);
	});
});
