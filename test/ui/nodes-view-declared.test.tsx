import {mkdtemp, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {cleanup, render} from 'ink-testing-library';
import {afterAll, afterEach, beforeAll, describe, expect, test} from 'vitest';
import {loadClusterFile} from '../../src/cluster/cluster-config.js';
import {type DeclaredNode, compareDeclared} from '../../src/cluster/declared-vs-seen.js';
import {DeclaredWatch} from '../../src/cluster/declared-watch.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import type {Snapshot} from '../../src/core/types.js';
import {detailFromScan} from '../../src/ranks/detail.js';
import App from '../../src/ui/app.js';
import NodesPane from '../../src/ui/fleet/NodesPane.js';
import type {FleetJobActions} from '../../src/ui/fleet/fleet-job-actions.js';
import {type FleetTuiSession, fleetTuiSession} from '../../src/ui/fleet/fleet-tui-session.js';
import {nodeRow} from '../../src/ui/fleet/node-rows.js';
import {press, untilFrame as until} from '../helpers/ink.js';
import {gpu, hostMemory} from '../helpers/snapshots.js';
import {expectFits, status} from './fixtures.js';
import {FakeFleet} from './fleet/fleet-fixtures.js';

// A node that is not what cluster.yaml says, on the many-node screen: its row says so (WARN, a short note), the
// alerts pane says how (the file's line), and its own view's banner keeps saying it. Real findings: a real
// cluster.yaml, judged by the real DeclaredWatch as the fake fleet's snapshots arrive.

const ENTER = '\r';

let dir: string;
let declared: ReadonlyMap<string, DeclaredNode>;
beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-declared-ui-'));
	const file = path.join(dir, 'cluster.yaml');
	const yaml = [
		'nodes:',
		'  - name: gpu1',
		'    host: localhost',
		'    gpus:',
		'      - {uuid: GPU-0, type: h100, vram_mb: 81920}',
		'      - {uuid: GPU-gone, type: h100, vram_mb: 81920}',
		'  - name: gpu2',
		'    host: localhost',
		'    gpus:',
		'      - {uuid: GPU-0, type: h100, vram_mb: 81920}',
		'',
	];
	await writeFile(file, yaml.join('\n'));
	declared = new Map((await loadClusterFile(file)).nodes.map(node => [node.node.name, node]));
});
afterAll(async () => {
	await rm(dir, {recursive: true, force: true});
});

let sessions: FleetTuiSession[] = [];
afterEach(() => {
	cleanup();
	for (const session of sessions) session.close();
	sessions = [];
});

/** One 80 GiB GPU (GPU-0) at 10 %, host RAM at 40 %. */
const ONE_GPU: Partial<Snapshot> = {
	memory: hostMemory(40),
	metrics: {ram: status(40, 'ok', 85), gpu0: status(10, 'ok', 85)},
	gpu: {status: 'ok', gpus: [gpu(0, 10)], sampledAt: 0, warning: null},
};

describe('the nodes pane', () => {
	test('a node with a finding: its level WARN, the note names the file and what differs', () => {
		const fleet = new FakeFleet(['gpu1', 'gpu2'])
			.hello('gpu1')
			.hello('gpu2')
			.send('gpu1', ONE_GPU)
			.send('gpu2', ONE_GPU);
		const rows = fleet.current().nodes.map(node => {
			const snapshot = node.snapshot!;
			return nodeRow(node, fleet.now, compareDeclared(declared.get(node.name)!, snapshot));
		});
		const {lastFrame} = render(<NodesPane rows={rows} cursor={1} order="given" width={100} height={5} />);
		const lines = expectFits(lastFrame(), 100, 5);
		expect(lines[2]).toMatch(/^ {2}gpu1 WARN connected +40\.0% +none +10\.0% +10\.0% +- ≠ cluster\.yaml: GPU missing$/);
		expect(lines[3]).toMatch(/^› gpu2 ok +connected +40\.0% +none +10\.0% +10\.0% +-$/);
	});
});

describe('the many-node screen with --cluster', () => {
	test("the row, the alerts pane's line naming the file's line, and the node's own banner", async () => {
		const fleet = new FakeFleet(['gpu1', 'gpu2']).hello('gpu1').hello('gpu2');
		const watch = new DeclaredWatch(fleet, declared);
		const session = fleetTuiSession(fleet, {
			settings: DEFAULT_SETTINGS,
			recorders: new Map(),
			actions: () => ({
				signalOf: action => (action === 'save' ? 'SIGUSR1' : 'SIGTERM'),
				send: async () => [],
				awaitSave: null,
				runDir: null,
				timeoutS: 60,
				analyze: async () => [],
				rankDetail: rank => detailFromScan(rank, Date.now()),
			}),
			// s and e are never pressed here: only what the screen reads to draw its key bar.
			jobActions: {
				signalOf: action => (action === 'save' ? 'SIGUSR1' : 'SIGTERM'),
				timeoutS: 60,
			} as Partial<FleetJobActions> as FleetJobActions,
			declared: watch,
			start: () => undefined,
		});
		sessions.push(session);
		const {lastFrame, stdin, stdout} = render(<App fleet={session} />);
		Object.defineProperty(stdout, 'columns', {value: 140, configurable: true});
		Object.defineProperty(stdout, 'rows', {value: 30, configurable: true});
		stdout.emit('resize');

		fleet.send('gpu1', ONE_GPU).send('gpu2', ONE_GPU);
		const frame = await until(lastFrame, f => /differs from/.test(f));
		expectFits(frame, 140, 29);
		expect(frame).toMatch(/^› gpu1 WARN connected .* ≠ cluster\.yaml: GPU missing$/m);
		expect(frame).toMatch(/^ {2}gpu2 ok +connected/m);
		expect(frame).toMatch(/• WARN node gpu1 differs from .*cluster\.yaml line 6: GPU GPU-gone \(h100\) is listed; /);

		await press(stdin, ENTER);
		const opened = await until(lastFrame, f => /^MEMORY gpu1/m.test(f));
		expect(opened).toMatch(
			/^NODE gpu1 · connected \(.*\) · ≠ cluster\.yaml: GPU missing \(in full: Esc, ALERTS\) · s\/e/m,
		);
		watch.close();
	});
});
