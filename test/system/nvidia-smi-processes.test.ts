// ComputeAppsPoller on its own, against the fake nvidia-smi: what the reader relies on when it calls kick(), pause()
// and halt(), and how the poller hands its children to the reader's ChildGroups. The tables themselves (parsing,
// errors, timeouts) are covered through the reader in nvidia-smi.test.ts.

import type {ChildProcess} from 'node:child_process';
import {join} from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import type {GpuProcessTable} from '../../src/core/types.js';
import {ComputeAppsPoller, type ComputeAppsPollerOptions} from '../../src/system/nvidia-smi-processes.js';
import {releasePipes, terminateGroup} from '../../src/system/process-group.js';
import {
	fakeEnv,
	fakeRuns,
	isAlive,
	killAll,
	readInvocations,
	removeTempDirs,
	tempDir,
	waitFor,
	type Knobs,
} from '../helpers/fake-nvidia-smi/harness.js';

const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';

interface Harness {
	poller: ComputeAppsPoller;
	log: string;
	/** The poller's children as a reader would hold them: tracked until forgotten or terminated. */
	live: Set<ChildProcess>;
	tracked: ChildProcess[];
	/** performance.now() at each track(): when the poller spawned each call. */
	trackedAt: number[];
	forgotten: ChildProcess[];
	/** Every table onChange announced, in order. */
	tables: GpuProcessTable[];
	/** Runs inside onChange, after the table has been recorded. */
	onTable: (table: GpuProcessTable) => void;
}

const started: Harness[] = [];

afterAll(removeTempDirs);

afterEach(async () => {
	for (const h of started.splice(0)) {
		h.poller.halt();
		await Promise.all([...h.live].map(child => terminateGroup(child, 300)));
		killAll(
			readInvocations(h.log)
				.map(entry => entry.pid)
				.filter(isAlive),
		);
	}
});

function startPoller(knobs: Knobs, options: Partial<ComputeAppsPollerOptions> = {}): Harness {
	const log = join(tempDir(), 'log.jsonl');
	const live = new Set<ChildProcess>();
	const tracked: ChildProcess[] = [];
	const trackedAt: number[] = [];
	const forgotten: ChildProcess[] = [];
	const tables: GpuProcessTable[] = [];
	const poller: ComputeAppsPoller = new ComputeAppsPoller({
		command: 'nvidia-smi',
		env: fakeEnv({FAKE_NVSMI_LOG: log, ...knobs}),
		intervalMs: 100,
		timeoutMs: 5_000,
		now: Date.now,
		groups: {
			track: child => {
				live.add(child);
				tracked.push(child);
				trackedAt.push(performance.now());
			},
			forget: child => {
				live.delete(child);
				forgotten.push(child);
			},
			terminate: async child => {
				if (await terminateGroup(child, 300)) live.delete(child);
				releasePipes(child);
			},
		},
		onChange: () => {
			const table = poller.getTable();
			tables.push(table);
			h.onTable(table);
		},
		...options,
	});
	const h: Harness = {poller, log, live, tracked, trackedAt, forgotten, tables, onTable: () => {}};
	started.push(h);
	return h;
}

const oneShots = (h: Harness) => fakeRuns(h.log, '--query-compute-apps');

/**
 * A poller that does call, kicked alongside the one under test: a check that the other one called nothing waits for
 * this one's later tables, which prove that the time in which it would have called has passed.
 */
function startWitness(): Harness {
	const witness = startPoller({FAKE_NVSMI_SCENARIO: H100});
	witness.poller.kick();
	return witness;
}

/** Waits for `count` more tables from the witness: about one per interval (100 ms). */
async function moreTables(witness: Harness, count: number): Promise<void> {
	const target = witness.tables.length + count;
	await waitFor(() => witness.tables.length >= target, `${count} more tables of the witness`);
}

describe('ComputeAppsPoller', () => {
	it('starts with an empty table and calls nothing before the first kick()', async () => {
		const h = startPoller({FAKE_NVSMI_SCENARIO: H100});
		const witness = startWitness();
		expect(h.poller.getTable()).toEqual({processes: [], sampledAt: null, error: null});
		await moreTables(witness, 3);
		expect(oneShots(h)).toEqual([]);
		expect(h.tables).toEqual([]);
	});

	it('kick() runs one call at once, then one per interval; each child is tracked, and forgotten once it is gone', async () => {
		const h = startPoller({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_FRAME: '2'});
		h.poller.kick();
		await waitFor(() => h.tables.length >= 2, 'two tables');
		// A kick while a call is waiting or in flight adds nothing.
		h.poller.kick();
		h.poller.kick();
		await waitFor(() => h.tables.length >= 4, 'four tables');
		h.poller.halt();
		// The call in flight at halt() ends by itself; then every child has been forgotten.
		await waitFor(() => h.live.size === 0, 'the last child to be gone');
		expect(h.tables[0]!.processes.map(process => process.pid)).toEqual([11327, 11328, 11345]);
		expect(h.tables.every(table => table.error === null && table.sampledAt !== null)).toBe(true);
		const runs = oneShots(h);
		// Start to start about the interval (100 ms), measured where the poller spawns. The poller spaces its
		// calls by the interval; how long spawn() itself takes varies under load (tens of ms on a busy
		// 2-core machine), so the margin is for that, not for calls coming early.
		for (let i = 1; i < h.trackedAt.length; i++)
			expect(h.trackedAt[i]! - h.trackedAt[i - 1]!).toBeGreaterThanOrEqual(60);
		expect(runs.map(run => run.pid)).toEqual(h.tracked.map(child => child.pid));
		expect(h.forgotten.map(child => child.pid)).toEqual(h.tracked.map(child => child.pid));
	});

	it('pause() drops the waiting call until the next kick()', async () => {
		const h = startPoller({FAKE_NVSMI_SCENARIO: H100});
		// Paused the moment the first table is published, before the poller schedules the next call.
		h.onTable = () => h.poller.pause();
		h.poller.kick();
		const witness = startWitness();
		await waitFor(() => h.tables.length >= 1, 'the first table');
		await moreTables(witness, 3);
		expect(oneShots(h)).toHaveLength(1);
		expect(h.tables).toHaveLength(1);
		h.onTable = () => {};
		h.poller.kick();
		await waitFor(() => h.tables.length >= 3, 'tables again');
		expect(oneShots(h).length).toBeGreaterThanOrEqual(3);
	});

	it('setWanted(false) starts nothing while the devices answer; setWanted(true) resumes at once', async () => {
		const h = startPoller({FAKE_NVSMI_SCENARIO: H100});
		h.poller.setWanted(false);
		h.poller.kick();
		const witness = startWitness();
		await moreTables(witness, 3);
		expect(oneShots(h)).toEqual([]);
		h.poller.setWanted(true);
		await waitFor(() => h.tables.length >= 2, 'tables once wanted');
		h.poller.setWanted(false);
		const calls = oneShots(h).length;
		await moreTables(witness, 3);
		// At most the call that was already in flight when it was turned off.
		expect(oneShots(h).length).toBeLessThanOrEqual(calls + 1);
	});

	it('intervalMs 0 turns it off', async () => {
		const h = startPoller({FAKE_NVSMI_SCENARIO: H100}, {intervalMs: 0});
		h.poller.kick();
		const witness = startWitness();
		await moreTables(witness, 3);
		expect(oneShots(h)).toEqual([]);
		expect(h.tables).toEqual([]);
	});

	it('halt() publishes nothing more and starts nothing; a call in flight stays with the groups', async () => {
		// Its timeout long enough to be halted first: under load the fake (a Node script) can take over 200 ms just to
		// start and log, and a timeout before halt() is not what this tests.
		const h = startPoller({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang'}, {timeoutMs: 5000});
		// The same, kicked alongside and never halted: its timeout error and its next call are what h would have had.
		const unhalted = startPoller({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_MODE: 'hang'}, {timeoutMs: 200});
		h.poller.kick();
		unhalted.poller.kick();
		const [hung] = await waitFor(() => (oneShots(h).length > 0 ? oneShots(h) : undefined), 'a call in flight');
		h.poller.halt();
		h.poller.kick();
		await waitFor(
			() => unhalted.tables.some(table => table.error !== null) && oneShots(unhalted).length >= 2,
			'the timeout error and the next call of the poller that was not halted',
		);
		// No timeout error after halt(), no second call, and the hung child is still the owner's to end.
		expect(h.tables).toEqual([]);
		expect(oneShots(h)).toHaveLength(1);
		expect(isAlive(hung!.pid)).toBe(true);
		expect([...h.live]).toEqual(h.tracked);
	});

	it('a command that cannot start: the error on the table, the child forgotten, and retried each interval', async () => {
		const command = join(tempDir(), 'nvidia-smi');
		const h = startPoller({}, {command});
		h.poller.kick();
		await waitFor(() => h.tables.length >= 2, 'two attempts');
		expect(h.tables[0]).toEqual({
			processes: [],
			sampledAt: null,
			error: `cannot start ${command}: spawn ${command} ENOENT`,
		});
		expect(h.forgotten).toEqual(h.tracked.slice(0, h.forgotten.length));
		expect(h.forgotten.length).toBeGreaterThanOrEqual(2);
	});
});
