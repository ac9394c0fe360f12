import {describe, expect, it} from 'vitest';
import type {Snapshot} from '../../../src/core/types.js';
import {nodeRow, type NodeRow} from '../../../src/ui/fleet/node-rows.js';
import {nodeColumns, nodeHeaderText, nodesTitle, nodesWindow, rowText} from '../../../src/ui/fleet/node-table.js';
import {gpu, hostMemory} from '../../helpers/snapshots.js';
import {NOW, rankSet, status} from '../fixtures.js';
import {FakeFleet} from './fleet-fixtures.js';

// The nodes pane's table, pure: which columns fit 60, 80 and 120 columns, each row's text, the window of rows drawn
// and what its "+N more" line says.

/** Every node's snapshot: 40 % RAM, 5 % swap, two GPUs at 80 and 60 %, eight ranks. */
const TYPICAL: Partial<Snapshot> = {
	memory: hostMemory(40, 5),
	gpu: {status: 'ok', gpus: [gpu(0, 80), gpu(1, 60)], sampledAt: NOW, warning: null},
	metrics: {ram: status(40, 'ok', 85), swap: status(5, 'ok', 50), gpu0: status(80, 'ok', 90)},
	ranks: rankSet(8),
};

function rows(names: readonly string[], shape: (fleet: FakeFleet) => void = () => undefined): NodeRow[] {
	const fleet = new FakeFleet(names);
	for (const name of names) fleet.hello(name).send(name, TYPICAL);
	shape(fleet);
	return fleet.current().nodes.map(node => nodeRow(node, fleet.now));
}

describe('nodeColumns and rowText', () => {
	it('120 columns: every column and a wide note', () => {
		const [row] = rows(['gpu-node-01'], fleet => fleet.send('gpu-node-01', TYPICAL, NOW + 5000));
		const cols = nodeColumns([row!], 120);
		expect(cols).toMatchObject({nameWidth: 11, swap: true, mean: true});
		expect(nodeHeaderText(cols)).toBe('  NODE        LVL  AGENT           RAM    SWAP GPUmax   mean   RANKS NOTE');
		expect(rowText(row!, cols, true)).toBe(
			'› gpu-node-01 ok   connected     40.0%    5.0%  80.0%  70.0%       8 clock +5 s',
		);
		expect(rowText(row!, cols, false).length).toBeLessThanOrEqual(120);
	});

	it('80 columns with long names: swap and the GPU mean fit, the note does not', () => {
		const all = rows(['a-very-long-node-name-01.cluster', 'n2']);
		const cols = nodeColumns(all, 80);
		expect(cols).toEqual({nameWidth: 16, swap: true, mean: true, noteWidth: 0});
		const text = rowText(all[0]!, cols, false);
		expect(text).toBe('  a-very-long-nod… ok   connected     40.0%    5.0%  80.0%  70.0%       8');
		expect(text.length).toBeLessThanOrEqual(80);
	});

	it('60 columns (the least the screen takes): swap and the mean go first, the rest still fits', () => {
		const all = rows(['a-very-long-node-name-01.cluster']);
		const cols = nodeColumns(all, 60);
		expect(cols).toEqual({nameWidth: 16, swap: false, mean: false, noteWidth: 0});
		expect(rowText(all[0]!, cols, false).length).toBeLessThanOrEqual(60);
		expect(nodeHeaderText(cols)).toBe('  NODE             LVL  AGENT           RAM  GPUmax   RANKS');
	});

	it("a node's address (cluster.yaml's host) beside its name, when it is not the name", () => {
		const fleet = new FakeFleet(['gpu1', 'gpu2'], 1000, {gpu1: '10.0.0.1', gpu2: 'gpu2'});
		for (const name of ['gpu1', 'gpu2']) fleet.hello(name).send(name, TYPICAL);
		const all = fleet.current().nodes.map(node => nodeRow(node, fleet.now));
		const cols = nodeColumns(all, 120);
		expect(rowText(all[0]!, cols, false)).toMatch(/^ {2}gpu1 at 10\.0\.0\.1 ok +connected/);
		expect(rowText(all[1]!, cols, false)).toMatch(/^ {2}gpu2 {13}ok +connected/);
	});

	it('a stale and a lost node read so, with their ages and why', () => {
		const all = rows(['node1', 'node2', 'node3'], fleet => {
			fleet.lose('node3', 'agent exited 255: ssh: connect to host node3 port 22: Connection refused');
			fleet.at(NOW + 7000);
			fleet.send('node1', TYPICAL, NOW + 7000);
		});
		const cols = nodeColumns(all, 120);
		expect(rowText(all[1]!, cols, false)).toMatch(/^ {2}node2 WARN stale 7 s +40\.0% /);
		expect(rowText(all[2]!, cols, false)).toMatch(
			/^ {2}node3 CRIT lost 7 s +40\.0% .* 8 agent exited 255: ssh: connect to host node3 port 22: Co…$/,
		);
		expect(nodesTitle(all, 'worst')).toBe('3 nodes · 1 connected · 1 stale · 1 lost · worst first');
	});
});

describe('nodesWindow', () => {
	const names = Array.from({length: 64}, (_, i) => `node${String(i + 1).padStart(2, '0')}`);

	it('64 nodes in 10 rows: 9 around the cursor and a line that counts the rest and the trouble among them', () => {
		const all = rows(names, fleet => {
			fleet.lose('node60', 'agent exited 255');
			fleet.lose('node61', 'agent exited 255');
			fleet.send('node50', {...TYPICAL, metrics: {gpu3: status(95, 'critical', 90)}});
		});
		expect(nodesWindow(all, 0, 10)).toEqual({
			start: 0,
			end: 9,
			more: '+55 more (0 above, 55 below): 2 lost, 1 CRIT',
		});
		// The cursor far down: the window follows it.
		const at = nodesWindow(all, 59, 10);
		expect(at.start).toBeLessThanOrEqual(59);
		expect(at.end).toBeGreaterThan(59);
		expect(at.more).toBe(`+55 more (${at.start} above, ${64 - at.end} below): 1 CRIT`);
	});

	it('all rows when they fit; no "+N more" line in a single row', () => {
		const all = rows(names.slice(0, 3));
		expect(nodesWindow(all, 2, 3)).toEqual({start: 0, end: 3, more: null});
		expect(nodesWindow(all, 2, 1)).toEqual({start: 2, end: 3, more: null});
	});
});
