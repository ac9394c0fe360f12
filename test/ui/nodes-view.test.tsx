import {cleanup, render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {detailFromScan} from '../../src/ranks/detail.js';
import type {SessionActions} from '../../src/session/actions.js';
import type {JobEvent, Snapshot} from '../../src/core/types.js';
import {watchNodeExits} from '../../src/fleet/node-exit-watch.js';
import {awaitNodeSave} from '../../src/fleet/node-save.js';
import type {NodeSend} from '../../src/fleet/send-across.js';
import App from '../../src/ui/app.js';
import type {FleetJobActions} from '../../src/ui/fleet/fleet-job-actions.js';
import {type FleetTuiSession, fleetTuiSession} from '../../src/ui/fleet/fleet-tui-session.js';
import {press, pressUntil, untilFrame as until} from '../helpers/ink.js';
import {checkpoint, checkpointIndex} from '../helpers/checkpoint-data.js';
import {hostMemory} from '../helpers/snapshots.js';
import {alert, expectFits, job, jobSet, rank, status} from './fixtures.js';
import {FakeFleet} from './fleet/fleet-fixtures.js';

// The many-node screen on a fleet driven by the test (real NodeStates fed agents' wire messages): the nodes, every
// node's ranks with their host, every node's alerts; Enter into a node's own full view, Esc back.

const ENTER = '\r';
const ESC = '\u001B';
const DOWN = '\u001B[B';

let sessions: FleetTuiSession[] = [];
afterEach(() => {
	cleanup();
	for (const session of sessions) session.close();
	sessions = [];
	sent = [];
	across = [];
});

const SLURM = {scheduler: 'slurm', jobId: '998', stepId: '0', restartCount: 0, taskId: null};

/** Ranks `ranks` of SLURM job 998.0 (world 4, two a node) on one node. */
const slurmRanks = (ranks: number[]) =>
	jobSet([
		job(
			'slurm:998.0',
			ranks.map(n => rank(n, {worldSize: 4, pid: 600 + n})),
			{identity: 'scheduler', localWorldSize: 2, task: SLURM},
		),
	]);

const node1: Partial<Snapshot> = {
	memory: hostMemory(62),
	metrics: {ram: status(62, 'ok', 85)},
	ranks: slurmRanks([0, 1]),
};
const node2: Partial<Snapshot> = {
	memory: hostMemory(88),
	metrics: {ram: status(88, 'critical', 85)},
	ranks: slurmRanks([2, 3]),
	newAlerts: [alert(1, 'ram', 'warn', 'critical', 88, 85)],
};

/** What a node's view sent, and to which node (the real ones go through that node's agent: fleet/node-actions.ts). */
let sent: {node: string; signal: string; job: string; pids: readonly number[] | undefined}[] = [];

function recordingActions(node: string): SessionActions {
	return {
		signalOf: action => (action === 'save' ? 'SIGUSR1' : 'SIGTERM'),
		send: async (signal, job, pids) => {
			sent.push({node, signal, job: job.id, pids});
			return (pids ?? []).map(pid => ({rank: null, pid, outcome: 'sent' as const, reason: null}));
		},
		awaitSave: null,
		runDir: null,
		timeoutS: 60,
		analyze: async () => [],
		rankDetail: rank => detailFromScan(rank, Date.now()),
	};
}

/** What s/e on the nodes sent, node by node (the real ones go through each node's agent: fleet/send-across.ts). */
let across: {signal: string; sends: {node: string; job: string; pids: number[]}[]}[] = [];

/** Records each send; every rank answers `sent`, rank 3 `refused` as an agent would with no handler; the save is
 * watched in the fake fleet's snapshots by the real awaitNodeSave. */
function recordingJobActions(fleet: FakeFleet): FleetJobActions {
	return {
		signalOf: action => (action === 'save' ? 'SIGUSR1' : 'SIGTERM'),
		send: async (signal, sends: readonly NodeSend[]) => {
			across.push({signal, sends: sends.map(({node, job, ranks}) => ({node, job, pids: ranks.map(r => r.pid)}))});
			return sends.flatMap(({node, ranks}) =>
				ranks.map(r =>
					r.rank === 3
						? {node, rank: r.rank, pid: r.pid, outcome: 'refused' as const, reason: 'no handler'}
						: {node, rank: r.rank, pid: r.pid, outcome: 'sent' as const, reason: null},
				),
			);
		},
		awaitSave: (node, sinceMs, expect) => awaitNodeSave(fleet, node, sinceMs, expect, 60_000),
		watchExits: (sends, sinceMs) => watchNodeExits(fleet, sends, sinceMs, 60_000),
		timeoutS: 60,
	};
}

/** What node `host`'s agent says when a rank of job 998.0 exited 99 (it read the zombie's status). */
const exited99 = (n: number): JobEvent => ({
	time: Date.now(),
	kind: 'rank-exited',
	job: 'slurm:998.0',
	rank: n,
	pid: 600 + n,
	level: 'warn',
	text: `rank ${n} (pid ${600 + n}) of slurm:998.0 exited with code 99 — saved for requeue`,
	exit: {code: 99, signal: null},
});

/** The app on a terminal `columns` × `rows`, fed by `fleet`. */
function app(fleet: FakeFleet, columns = 120, rows = 40, readonly = false) {
	const session = fleetTuiSession(fleet, {
		settings: {...DEFAULT_SETTINGS, readonly},
		recorders: new Map(),
		actions: node => recordingActions(node),
		jobActions: recordingJobActions(fleet),
		start: () => undefined,
	});
	sessions.push(session);
	const instance = render(<App fleet={session} />);
	Object.defineProperty(instance.stdout, 'columns', {value: columns, configurable: true});
	Object.defineProperty(instance.stdout, 'rows', {value: rows, configurable: true});
	instance.stdout.emit('resize');
	return instance;
}

describe('the many-node screen', () => {
	test("the nodes, one SLURM job's ranks across both with their host, both nodes' alerts", async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const {lastFrame} = app(fleet);
		fleet.send('node1', node1).send('node2', node2);
		const frame = await until(lastFrame, f => /^RANKS 4 \(world 4\)/m.test(f) && /node2 ram/.test(f));
		expectFits(frame, 120, 39);
		expect(frame).toMatch(/^NODES 2 nodes · 2 connected$/m);
		expect(frame).toMatch(/^› node1 +ok +connected +62\.0% +none +- +- +2\/2 *$/m);
		expect(frame).toMatch(/^ {2}node2 +CRIT +connected +88\.0% /m);
		expect(frame).toMatch(/^RANKS 4 \(world 4\) · job slurm:998\.0 · SLURM 998\.0$/m);
		expect(frame).not.toMatch(/target:/);
		// Rank by rank across the nodes, each on its node, none selected.
		const ranks = frame.split('\n').filter(line => /^ {3}node\d +\d +6\d\d /.test(line));
		expect(ranks.map(line => line.trim().split(/ +/).slice(0, 2).join(' '))).toEqual([
			'node1 0',
			'node1 1',
			'node2 2',
			'node2 3',
		]);
		expect(frame).toMatch(/▲ CRIT node2 ram 88\.0% {2}was WARN/);
		expect(frame).toMatch(/q quit {2}Enter open {2}s save {2}e emergency {2}↑↓ move {2}\? help {2}o order/);
	});

	test("Enter opens a node's own view (its memory, its ranks); lost there, it says so; Esc comes back", async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const {lastFrame, stdin} = app(fleet);
		fleet.send('node1', node1).send('node2', node2);
		await until(lastFrame, f => /^RANKS 4/m.test(f));
		await press(stdin, DOWN, ENTER);
		const opened = await until(lastFrame, f => /^MEMORY node2/m.test(f));
		expectFits(opened, 120, 39);
		expect(opened).toMatch(
			/^NODE node2 · connected \(traintop 0\.1\.0, agent pid \d+\) · s\/e: this node's ranks, through its agent/m,
		);
		expect(opened).toMatch(/^RAM .* 88\.0% CRIT/m);
		expect(opened).toMatch(/^RANKS 2 \(world 4\) · job slurm:998\.0/m);
		expect(opened).toMatch(/s save/);

		// s: the confirm box says the other node's ranks get nothing, and which command reaches every task; y sends
		// through node2's actions (its agent), to node2's two ranks only.
		const box = await pressUntil(stdin, 's', lastFrame, f => /Send SIGUSR1 \(save\) to job slurm:998\.0\?/.test(f));
		expect(box).toMatch(/2 of its 4 ranks run elsewhere and get nothing: `traintop signal save --slurm-job 998`/);
		await press(stdin, 'y');
		await until(lastFrame, () => sent.length > 0);
		expect(sent).toEqual([{node: 'node2', signal: 'SIGUSR1', job: 'slurm:998.0', pids: [602, 603]}]);
		await press(stdin, ESC);
		await until(lastFrame, f => /^MEMORY node2/m.test(f) && !/Send SIGUSR1/.test(f));

		// Its agent lost: the view stays on its last snapshot and says so above it.
		fleet.lose('node2', 'agent killed by SIGKILL').at(fleet.now + 12_000);
		const lost = await until(lastFrame, f => /^NODE node2 · lost/m.test(f));
		expect(lost).toMatch(
			/^NODE node2 · lost: agent killed by SIGKILL; reconnecting · below: its last snapshot, 12 s old/m,
		);
		expect(lost).toMatch(/^MEMORY node2/m);

		// Enter on a rank: its detail from the agent's last scan (this machine's /proc is not the node's).
		await press(stdin, ENTER);
		const detail = await until(lastFrame, f => /the last scan's: \/proc\/PID\/cmdline could not be read/.test(f));
		expect(detail).toMatch(/train\.py/);
		await press(stdin, ESC);
		await until(lastFrame, f => !/could not be read/.test(f) && /^MEMORY node2/m.test(f));

		// Esc on the view itself: the nodes again, the cursor still on node2.
		await press(stdin, ESC);
		const back = await until(lastFrame, f => /^NODES /m.test(f));
		expect(back).toMatch(/^› node2 +CRIT +lost 12 s/m);
		expect(back).not.toMatch(/^MEMORY/m);
	});

	test('at 80×24: the nodes, the ranks and the alerts fit, a line short of the screen', async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const {lastFrame} = app(fleet, 80, 24);
		fleet.send('node1', node1).send('node2', node2);
		const frame = await until(lastFrame, f => /^RANKS 4/m.test(f) && /^ALERTS/m.test(f));
		expectFits(frame, 80, 23);
		expect(frame).toMatch(/^NODES 2 nodes/m);
	});

	test("s on node1: the box lists both nodes' ranks of the job; y sends through each node; results per rank; the save seen", async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const {lastFrame, stdin} = app(fleet);
		const index = checkpointIndex();
		fleet.send('node1', {...node1, checkpoints: index}).send('node2', node2);
		const list = await until(lastFrame, f => /^RANKS 4/m.test(f));
		expect(list).toMatch(/s save {2}e emergency/);

		const box = await pressUntil(stdin, 's', lastFrame, f => /Send SIGUSR1 \(save\) to job slurm:998\.0\?/.test(f));
		expectFits(box, 120, 39);
		expect(box).toMatch(/4 ranks on 2 nodes · save watched in \/runs\/exp1 on node1/);
		expect(box).toMatch(/route: agents — each node's agent sends to its own ranks, every guard applied there/);
		expect(box).toMatch(/node1: ranks 0, 1 \(2 of 2 here\)/);
		expect(box).toMatch(/node2: ranks 2, 3 \(2 of 2 here\)/);
		expect(box).toMatch(/rank 3 {2}pid 603 {2}handles SIGUSR1/);
		expect(across).toEqual([]);

		await press(stdin, 'y');
		const result = await until(lastFrame, f => /sent 3, refused 1/.test(f));
		expect(across).toEqual([
			{
				signal: 'SIGUSR1',
				sends: [
					{node: 'node1', job: 'slurm:998.0', pids: [600, 601]},
					{node: 'node2', job: 'slurm:998.0', pids: [602, 603]},
				],
			},
		]);
		expect(result).toMatch(/SIGUSR1 \(save\) to job slurm:998\.0: sent 3, refused 1/);
		expect(result).toMatch(/node1 rank 0 {2}pid 600 {2}sent/);
		expect(result).toMatch(/node2 rank 3 {2}pid 603 {2}refused: no handler/);
		expect(result).toMatch(/waiting for checkpoint… \(SIGUSR1 to job slurm:998\.0 sent/);

		// node1's agent sees the manual checkpoint in its run dir: the box says the save is done.
		const saved = checkpoint(1600, 0, {kind: 'manual', time: Date.now()});
		fleet.send('node1', {...node1, checkpoints: {...index, checkpoints: [...index.checkpoints, saved]}});
		const done = await until(lastFrame, f => /saved checkpoint_step_1600 in [\d.]+ s/.test(f));
		expect(done).toMatch(/node2 rank 2 {2}pid 602 {2}sent/);
		await press(stdin, ESC);
		await until(lastFrame, f => /^NODES /m.test(f) && !/sent 3/.test(f));
	});

	test("e on node1: SIGTERM through both nodes; the emergency checkpoint on node1; node1's ranks exit 99, node2 is lost", async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const {lastFrame, stdin} = app(fleet);
		const index = checkpointIndex();
		fleet.send('node1', {...node1, checkpoints: index}).send('node2', node2);
		await until(lastFrame, f => /^RANKS 4/m.test(f));
		await pressUntil(stdin, 'e', lastFrame, f => /Send SIGTERM \(emergency checkpoint\) to job slurm:998\.0\?/.test(f));
		await press(stdin, 'y');
		// Rank 3 refused it: only rank 2 is waited for on node2.
		const waiting = await until(lastFrame, f => /sent 3, refused 1/.test(f) && /node2: waiting/.test(f));
		expect(waiting).toMatch(/waiting for checkpoint… \(SIGTERM to job slurm:998\.0 sent/);
		expect(waiting).toMatch(/node1: waiting for ranks 0, 1 to exit…/);
		expect(waiting).toMatch(/node2: waiting for rank 2 to exit…/);

		// node1's agent sees the emergency checkpoint, then its ranks gone, each read exiting 99.
		const saved = checkpoint(1600, 0, {kind: 'emergency', time: Date.now()});
		fleet.send('node1', {...node1, checkpoints: {...index, checkpoints: [...index.checkpoints, saved]}});
		await until(lastFrame, f => /saved checkpoint_step_1600 in [\d.]+ s on node1/.test(f));
		fleet.send('node1', {...node1, ranks: slurmRanks([]), events: [exited99(0), exited99(1)]});
		const exited = await until(lastFrame, f => /node1: ranks 0, 1 exited/.test(f));
		expect(exited).toMatch(/node1: ranks 0, 1 exited after SIGTERM \(exit 99 — saved for requeue\)/);
		expect(exited).toMatch(/saved checkpoint_step_1600 in [\d.]+ s on node1/);

		// node2's agent lost before its rank was seen to go: said so, never counted as exited.
		fleet.lose('node2', 'agent killed by SIGKILL');
		const lost = await until(lastFrame, f => /node2 lost/.test(f));
		expect(lost).toMatch(/node2 lost: agent killed by SIGKILL; reconnecting — rank 2 not seen to exit/);
		expect(lost).not.toMatch(/node2: rank 2 exited/);
	});

	test("e: every node's ranks exit before any checkpoint is seen: said as the one-node screen says it", async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const {lastFrame, stdin} = app(fleet);
		fleet.send('node1', {...node1, checkpoints: checkpointIndex()}).send('node2', node2);
		await until(lastFrame, f => /^RANKS 4/m.test(f));
		await pressUntil(stdin, 'e', lastFrame, f => /Send SIGTERM/.test(f));
		await press(stdin, 'y');
		await until(lastFrame, f => /node2: waiting for rank 2 to exit…/.test(f));
		fleet.send('node1', {...node1, ranks: slurmRanks([]), events: [exited99(0), exited99(1)]});
		fleet.send('node2', {...node2, ranks: slurmRanks([3]), events: [exited99(2)]});
		const done = await until(lastFrame, f => /no emergency checkpoint seen/.test(f));
		expect(done).toMatch(
			/no emergency checkpoint seen: job slurm:998\.0 exited after SIGTERM \(exit 99 — saved for requeue\)/,
		);
		expect(done).toMatch(/node1: ranks 0, 1 exited after SIGTERM \(exit 99 — saved for requeue\)/);
		expect(done).toMatch(/node2: rank 2 exited after SIGTERM \(exit 99 — saved for requeue\)/);
		expect(done).not.toMatch(/waiting for checkpoint/);
	});

	test('a node of the job lost: the box says so and why; y sends nothing to any node', async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const {lastFrame, stdin} = app(fleet);
		fleet.send('node1', node1).send('node2', node2);
		await until(lastFrame, f => /^RANKS 4/m.test(f));
		fleet.lose('node2', 'agent killed by SIGKILL');
		await press(stdin, 'e');
		const box = await until(lastFrame, f => /Send SIGTERM \(emergency checkpoint\) to job slurm:998\.0\?/.test(f));
		expect(box).toMatch(/nothing will be sent: node2 lost: agent killed by SIGKILL; reconnecting/);
		expect(box).toMatch(/every node holding ranks of the job must be connected/);
		await press(stdin, 'y');
		const result = await until(lastFrame, f => /nothing sent/.test(f));
		expect(result).toMatch(/node2 lost: agent killed by SIGKILL; reconnecting: nothing was sent/);
		expect(result).toMatch(/leaves the others waiting in a collective/);
		expect(across).toEqual([]);
	});

	test('--readonly: no s or e on the nodes, in the key bar, the help or the keys', async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const {lastFrame, stdin} = app(fleet, 120, 40, true);
		fleet.send('node1', node1).send('node2', node2);
		const list = await until(lastFrame, f => /^RANKS 4/m.test(f));
		expect(list).toMatch(/READ-ONLY/);
		expect(list).not.toMatch(/s save/);
		await press(stdin, 's', '?');
		const help = await until(lastFrame, f => /traintop keys \(many nodes\)/.test(f));
		expect(help).toMatch(/--readonly: s and e are off/);
		expect(help).not.toMatch(/save: send the save signal/);
		expect(help).not.toMatch(/emergency checkpoint: send/);
		expect(help).not.toMatch(/Send SIGUSR1/);
		expect(across).toEqual([]);
	});

	test("saves are not alerts; the nodes' alerts scroll with [ ], node2's RAM CRIT pinned on top", async () => {
		const fleet = new FakeFleet(['node1', 'node2']).hello('node1').hello('node2');
		const {lastFrame, stdin} = app(fleet, 120, 22);
		fleet.send('node1', node1).send('node2', node2);
		// Twelve GPU level changes on node1, each back to ok, after node2's CRIT; then 60 saves on node1.
		fleet.send('node1', {
			newAlerts: Array.from({length: 12}, (_, i) => alert(0.5, 'gpu0', 'ok', i % 2 ? 'ok' : 'warn', 80)),
		});
		const saves = Array.from({length: 60}, (_, i) => ({
			...exited99(0),
			kind: 'save-seen' as const,
			level: 'ok' as const,
			text: `saved checkpoint_step_${i}`,
		}));
		fleet.send('node1', {events: saves});
		const frame = await until(lastFrame, f =>
			/^ALERTS 13 level changes, newest \d+, CRIT pinned \(\[ \] scroll\)$/m.test(f),
		);
		expect(frame).not.toContain('saved checkpoint_step');
		const pinned = (f: string) => f.split('\n')[f.split('\n').findIndex(l => l.startsWith('ALERTS')) + 1];
		expect(pinned(frame)).toMatch(/▲ CRIT node2 ram 88\.0%/);
		const older = await pressUntil(stdin, '[', lastFrame, f =>
			/^ALERTS 13 level changes, 2–\d+ of 13, CRIT pinned/m.test(f),
		);
		expect(pinned(older)).toMatch(/▲ CRIT node2 ram 88\.0%/);
		await pressUntil(stdin, ']', lastFrame, f => /^ALERTS 13 level changes, newest \d+, CRIT pinned/m.test(f));
	});
});
