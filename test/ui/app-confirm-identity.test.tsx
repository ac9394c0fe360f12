import {cleanup, render} from 'ink-testing-library';
import {afterEach, describe, expect, test} from 'vitest';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import type {RankSet, Snapshot} from '../../src/core/types.js';
import {sessionActions} from '../../src/session/actions.js';
import {procReader} from '../../src/system/procfs.js';
import App from '../../src/ui/app.js';
import type {TuiSession} from '../../src/ui/tui-session.js';
import {press, untilFrame as until} from '../helpers/ink.js';
import {type PythonChild, startPython} from '../helpers/python-child.js';
import {until as waitUntil} from '../helpers/until.js';
import {job, jobSet, rank, signal} from './fixtures.js';
import {NO_HISTORY} from './no-history.js';
import {screenData} from './screen-data.js';

// The confirm box sends to the processes it showed, (pid, start time), never to whatever holds the pid when y is
// pressed. A real rank (python3) and the real sender (session/actions.ts → ranks/send.ts, real /proc); the rank scan
// is published by hand, so that a rescan can show "the same pid, another start time" (PID reuse itself cannot be
// forced from a test).

let python: PythonChild | null = null;
afterEach(() => {
	cleanup();
	python?.kill();
	python = null;
});

/** A session whose rank scans the test publishes; its actions are the real ones, on the real /proc. */
function sessionWith(first: RankSet) {
	let snapshot: Snapshot = {
		...screenData({gpus: 0, ranks: 0, checkpoints: 0, alerts: 0, ranksAvailable: true, checkpointsAvailable: false})
			.snapshot,
		ranks: first,
		time: Date.now(),
	};
	const listeners = new Set<(s: Snapshot) => void>();
	const session: TuiSession = {
		host: 'node1',
		readonly: false,
		monitor: {
			subscribe: listener => {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
			getSnapshot: () => snapshot,
			...NO_HISTORY,
		},
		recorder: {trouble: {get: () => null, subscribe: () => () => undefined}},
		actions: sessionActions({settings: DEFAULT_SETTINGS, proc: procReader(), checkpoints: null, logPath: null}),
		start: () => undefined,
	};
	const publish = (next: RankSet): void => {
		snapshot = {...snapshot, ranks: next, time: Date.now(), tick: snapshot.tick + 1};
		for (const listener of [...listeners]) listener(snapshot);
	};
	return {session, publish};
}

/** The App on a session whose first scan is `first`, with the save box open on its job (s pressed). */
async function saveBoxOpenOn(first: RankSet) {
	const {session, publish} = sessionWith(first);
	const {lastFrame, stdin} = render(<App session={session} />);
	await until(lastFrame, f => f.includes('torchrun:4242'));
	await press(stdin, 's');
	await until(lastFrame, f => f.includes('Send SIGUSR1 (save) to job torchrun:4242?'));
	return {publish, lastFrame, stdin};
}

/** The rank set of one job whose rank 0 is `pid` with this start time (its USR1 handled: a save would be sent). */
function scan(pid: number, startTime: number): RankSet {
	const zero = rank(0, {pid, startTime, worldSize: 1, signals: {...rank(0).signals, SIGUSR1: signal('handled')}});
	return jobSet([job('torchrun:4242', [zero])]);
}

describe('the confirm box sends to the identities it showed', () => {
	test('rank 0 replaced by another process on the same pid (new start time) while the box is open: gone, nothing sent', async () => {
		python = await startPython('on(signal.SIGUSR1, "USR1")\non(signal.SIGUSR2, "USR2")');
		const now = procReader().stat(python.pid)!.startTime;
		// The box opens on the process that held the pid before (an earlier start time) …
		const {publish, lastFrame, stdin} = await saveBoxOpenOn(scan(python.pid, now - 1));
		// … and the rescan finds a new RANK=0 process on that pid: the python3, really running.
		publish(scan(python.pid, now));
		await press(stdin, 'y');
		const frame = await until(lastFrame, f => f.includes('to job torchrun:4242') && !f.includes('sending'));
		expect(frame).toContain(`pid ${python.pid} is no longer rank 0`);
		expect(frame).not.toMatch(/sent 1/);
		// The send ran (synchronously, kill(2) included) before the result box: a signal sent after it is the first to
		// arrive, so USR1 never came.
		process.kill(python.pid, 'SIGUSR2');
		await waitUntil(
			() => python!.lines,
			lines => lines.includes('got USR2'),
			'the USR2 handler to run',
			5000,
		);
		expect(python.lines).toEqual(['got USR2']);
	});

	test('the same identity in the rescan: the signal reaches the rank', async () => {
		python = await startPython('on(signal.SIGUSR1, "USR1")');
		const now = procReader().stat(python.pid)!.startTime;
		const {publish, lastFrame, stdin} = await saveBoxOpenOn(scan(python.pid, now));
		publish(scan(python.pid, now));
		await press(stdin, 'y');
		await until(lastFrame, f => f.includes('SIGUSR1 (save) to job torchrun:4242: sent 1'));
		await waitUntil(
			() => python!.lines,
			lines => lines.includes('got USR1'),
			'the USR1 handler to run',
			5000,
		);
	});
});
