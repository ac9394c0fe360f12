import {readFileSync} from 'node:fs';
import {cleanup, render} from 'ink-testing-library';
import {afterEach, expect, test} from 'vitest';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import type {Snapshot} from '../../src/core/types.js';
import {sessionActions} from '../../src/session/actions.js';
import {procReader} from '../../src/system/procfs.js';
import App from '../../src/ui/app.js';
import type {TuiSession} from '../../src/ui/tui-session.js';
import {press, untilFrame as until} from '../helpers/ink.js';
import {type PythonChild, startPython} from '../helpers/python-child.js';
import {until as poll} from '../helpers/until.js';
import {job, jobSet, rank} from './fixtures.js';
import {NO_HISTORY} from './no-history.js';
import {screenData} from './screen-data.js';

// `w` in a rank's detail, in the app with --readonly, on a real process: a python3 "rank" with one child (its
// DataLoader worker), read through the real session actions (this machine's /proc; py-spy when on PATH). The box
// shows where each is: the rank's and the worker's threads with their wait channels, as /proc has them.

let python: PythonChild | null = null;
let worker = 0;
afterEach(() => {
	cleanup();
	python?.kill('SIGKILL');
	if (worker) process.kill(worker, 'SIGKILL');
	python = null;
	worker = 0;
});

const ENTER = '\r';

test("w in a rank's detail shows where the rank and its worker are; --readonly keeps it", async () => {
	python = await startPython(
		"import subprocess\nw = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])",
		{},
		'traintop-test-where',
	);
	const {pid} = python;
	const children = await poll(
		() => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim(),
		text => /^\d+$/.test(text),
		'the worker to start',
	);
	worker = Number(children);
	const proc = procReader();
	const startTime = proc.stat(pid)!.startTime;
	// Both asleep (signal.pause, time.sleep): their wait channels are what the box must show.
	const wchan = (p: number) =>
		poll(
			() => readFileSync(`/proc/${p}/wchan`, 'utf8').trim(),
			text => /^\w+$/.test(text) && text !== '0',
			`pid ${p} asleep`,
		);
	const [rankWait, workerWait] = [await wchan(pid), await wchan(worker)];
	const real = rank(0, {pid, ppid: process.pid, startTime, workers: [worker], job: 'python:1'});
	const snapshot: Snapshot = {
		...screenData({gpus: 0, ranks: 0, checkpoints: 0, alerts: 0, ranksAvailable: true, checkpointsAvailable: false})
			.snapshot,
		ranks: jobSet([job('python:1', [real])]),
		time: Date.now(),
	};
	const session: TuiSession = {
		host: 'node1',
		readonly: true,
		monitor: {subscribe: () => () => undefined, getSnapshot: () => snapshot, ...NO_HISTORY},
		recorder: {trouble: {get: () => null, subscribe: () => () => undefined}},
		actions: sessionActions({settings: DEFAULT_SETTINGS, proc, checkpoints: null, logPath: null}),
		start: () => undefined,
	};
	const {lastFrame, stdin} = render(<App session={session} />);
	await until(lastFrame, f => f.includes('RANKS 1 · job python:1'));
	await press(stdin, ENTER);
	await until(lastFrame, f => f.includes(`rank 0 · pid ${pid} · job python:1`) && f.includes('w where'));
	await press(stdin, 'w');
	const frame = await until(
		lastFrame,
		f => f.includes(`rank 0 · pid ${pid} · job python:1 · where`) && f.includes('worker of'),
	);
	expect(frame).toContain(`rank 0  pid ${pid}  S in ${rankWait}`);
	expect(frame).toContain(`worker of rank 0 (pid ${pid})  pid ${worker}  S in ${workerWait}`);
	expect(frame).toMatch(new RegExp(`thread ${pid} .*S in ${rankWait}`));
	// py-spy on PATH or not, the box says which.
	expect(frame).toMatch(/py-spy is not on PATH|Python frames by py-spy/);
});
