import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, expect, test} from 'vitest';
import {loadClusterFile} from '../../src/cluster/cluster-config.js';
import type {DeclaredNode} from '../../src/cluster/declared-vs-seen.js';
import {DeclaredWatch, type FindingChange} from '../../src/cluster/declared-watch.js';
import type {Snapshot} from '../../src/core/types.js';
import {gpu} from '../helpers/snapshots.js';
import {FakeFleet} from '../ui/fleet/fleet-fixtures.js';

// The findings as the fleet's snapshots arrive: judged per snapshot, told once when first seen and once when
// cleared, the node's list the same object while nothing changes (the nodes pane memoises on it).

let dir: string;
let declared: ReadonlyMap<string, DeclaredNode>;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-declared-watch-'));
	const file = path.join(dir, 'cluster.yaml');
	await writeFile(
		file,
		[
			'nodes:',
			'  - name: gpu1',
			'    host: localhost',
			'    gpus:',
			'      - {uuid: GPU-0, type: h100, vram_mb: 81920}',
			'      - {uuid: GPU-1, type: h100, vram_mb: 81920}',
			'',
		].join('\n'),
	);
	declared = new Map((await loadClusterFile(file)).nodes.map(node => [node.node.name, node]));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

const withGpus = (...indexes: number[]): Partial<Snapshot> => ({
	gpu: {status: 'ok', gpus: indexes.map(i => gpu(i, 10)), sampledAt: 0, warning: null},
});

test('a GPU missing: said once over many snapshots, cleared once when it shows; a node not in the file has none', () => {
	const fleet = new FakeFleet(['gpu1', 'other']).hello('gpu1').hello('other');
	let now = 1000;
	const watch = new DeclaredWatch(fleet, declared, () => now);
	const changes: FindingChange[] = [];
	watch.onChange(change => changes.push(change));

	fleet.send('gpu1', withGpus(0)).send('other', withGpus(0));
	const first = watch.of('gpu1');
	expect(first.map(f => f.key)).toEqual(['gpu-missing:GPU-1']);
	expect(first[0]?.line).toBe(6);
	for (let i = 0; i < 5; i++) fleet.send('gpu1', withGpus(0));
	expect(watch.of('gpu1')).toBe(first);
	expect(changes.map(c => `${c.time} ${c.state} ${c.finding.key}`)).toEqual(['1000 seen gpu-missing:GPU-1']);
	expect(watch.of('other')).toEqual([]);

	now = 5000;
	fleet.send('gpu1', withGpus(0, 1));
	expect(watch.of('gpu1')).toEqual([]);
	expect(changes.map(c => `${c.time} ${c.state} ${c.finding.key}`)).toEqual([
		'1000 seen gpu-missing:GPU-1',
		'5000 cleared gpu-missing:GPU-1',
	]);
	// The alerts pane's events: the finding at its level, then agreeing again, ok; each naming the node and line.
	expect(watch.events().map(e => `${e.time} ${e.kind} ${e.level} ${e.text}`)).toEqual([
		expect.stringMatching(
			/^1000 node-declared warn node gpu1 differs from .*cluster\.yaml line 6: GPU GPU-1 \(h100\) is listed/,
		),
		expect.stringMatching(/^5000 node-declared ok node gpu1 agrees with .*cluster\.yaml line 6 again \(was: GPU GPU-1/),
	]);

	watch.close();
	fleet.send('gpu1', withGpus(0));
	expect(changes).toHaveLength(2);
});
