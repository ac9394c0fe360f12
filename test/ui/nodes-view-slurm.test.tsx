import {afterEach, describe, expect, test} from 'vitest';
import {cleanup, render} from 'ink-testing-library';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import App from '../../src/ui/app.js';
import type {FleetJobActions} from '../../src/ui/fleet/fleet-job-actions.js';
import {type FleetTuiSession, fleetTuiSession} from '../../src/ui/fleet/fleet-tui-session.js';
import {fleetJob} from '../../src/ui/fleet/job-level.js';
import {untilFrame as until} from '../helpers/ink.js';
import {hostMemory} from '../helpers/snapshots.js';
import {slurmOk} from '../helpers/slurm-job.js';
import {slurmState, slurmViewOf} from '../../src/slurm/scheduler-state.js';
import {expectFits, NOW, status} from './fixtures.js';
import {FakeFleet} from './fleet/fleet-fixtures.js';

// The SLURM job's facts at the top of the list of nodes (its time left, its requeues), not only inside a node's view:
// every node reads the same job from the controller, and the freshest read among them is shown.

let sessions: FleetTuiSession[] = [];
afterEach(() => {
	cleanup();
	for (const session of sessions) session.close();
	sessions = [];
});

/** Job 16 as node1 read it a minute ago (restart 0), and as node2 read it now, requeued once since (restart 1). */
const older = slurmOk(NOW - 60_000, {timeLeftS: 660, restarts: 0});
const newer = slurmOk(NOW - 1000, {timeLeftS: 597, restarts: 1});
/** As a node's snapshot carries a job view: its scheduler's state. */
const read = (view: typeof newer | null) => view && slurmState(view);

/** Nothing is sent here: s and e are not pressed. */
const noActions: FleetJobActions = {
	signalOf: action => (action === 'save' ? 'SIGUSR1' : 'SIGTERM'),
	send: () => Promise.reject(new Error('nothing is sent in this test')),
	awaitSave: () => Promise.reject(new Error('nothing is sent in this test')),
	watchExits: () => {
		throw new Error('nothing is sent in this test');
	},
	timeoutS: 60,
};

describe('the SLURM job on the list of nodes', () => {
	test('the freshest job view among the nodes, with the checkpoints of the node that read it; none outside SLURM', () => {
		const fleet = new FakeFleet(['node1', 'node2', 'node3']).hello('node1').hello('node2').hello('node3');
		fleet
			.send('node1', {scheduler: read(older)})
			.send('node2', {scheduler: read(newer)})
			.send('node3', {scheduler: null});
		const top = fleetJob(fleet.current().nodes);
		expect(slurmViewOf(top?.state)).toEqual(newer);
		expect(top?.risk).toBeNull();
		expect(fleetJob(fleet.current().nodes.filter(node => node.name === 'node3'))).toBeNull();
		// A tie: the first node listed.
		const same = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		same.send('node1', {scheduler: read(newer)}).send('node2', {scheduler: read({...newer})});
		expect(slurmViewOf(fleetJob(same.current().nodes)?.state)).toBe(newer);
	});

	test('drawn above the nodes: the job, its time left and its restarts, from the freshest read', async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const session = fleetTuiSession(fleet, {
			settings: DEFAULT_SETTINGS,
			recorders: new Map(),
			actions: () => {
				throw new Error('no node view is opened here');
			},
			jobActions: noActions,
			start: () => undefined,
		});
		sessions.push(session);
		const instance = render(<App fleet={session} />);
		Object.defineProperty(instance.stdout, 'columns', {value: 120, configurable: true});
		Object.defineProperty(instance.stdout, 'rows', {value: 40, configurable: true});
		instance.stdout.emit('resize');
		const memory = {memory: hostMemory(50), metrics: {ram: status(50, 'ok', 85)}};
		fleet.send('node1', {...memory, scheduler: read(older)}).send('node2', {...memory, scheduler: read(newer)});
		const frame = await until(instance.lastFrame, f => /^SLURM job 16 /m.test(f) && /^NODES 2 nodes/m.test(f));
		const lines = expectFits(frame, 120, 39);
		const slurm = lines.findIndex(line => line.startsWith('SLURM job 16 '));
		expect(slurm).toBe(0);
		expect(lines.findIndex(line => line.startsWith('NODES '))).toBeGreaterThan(slurm);
		expect(lines[0]).toContain('restart 1');
		expect(frame).toMatch(/9 m 57 s left/);
	});
});
