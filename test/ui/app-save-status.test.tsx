import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {cleanup, render} from 'ink-testing-library';
import {afterAll, afterEach, beforeAll, expect, test} from 'vitest';
import App from '../../src/ui/app.js';
import {startPython, type PythonChild} from '../helpers/python-child.js';
import {flush, press, untilFrame as until} from '../helpers/ink.js';
import {closeSessions, testSession} from '../helpers/session.js';

// A save that makes no checkpoint: a real process that handles SIGUSR1 but never writes one. The
// checkpoints pane must say so once the timeout is over; without a RUN_DIR, or with one that is not
// this job's, it says that nothing is waited for.

let child: PythonChild;
let dir: string;
let otherDir: string;
/** Only this test's process: its last argv word is its run dir, which names its job as RUN_DIR's. */
let selector: {readonly kind: 'match'; readonly pattern: RegExp};

beforeAll(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-save-status-'));
	otherDir = await mkdtemp(path.join(tmpdir(), 'traintop-save-status-other-'));
	selector = {kind: 'match', pattern: new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)};
	child = await startPython('on(signal.SIGUSR1, "USR1")', {RANK: '0', LOCAL_RANK: '0', WORLD_SIZE: '1'}, dir);
});
afterAll(async () => {
	child.kill('SIGKILL');
	await rm(dir, {recursive: true, force: true});
	await rm(otherDir, {recursive: true, force: true});
});
afterEach(async () => {
	cleanup();
	await closeSessions();
});

test('no checkpoint within --timeout: the pane says so, after "waiting for checkpoint…"', async () => {
	const session = await testSession({settings: {timeout: 1}, runDir: dir, selector});
	const {lastFrame, stdin} = render(<App session={session} />);
	await until(lastFrame, f => /RANKS 1/.test(f));
	stdin.write('s');
	await flush();
	await until(lastFrame, f => f.includes('Send SIGUSR1'));
	stdin.write('y');
	await flush();
	await until(lastFrame, f => /SIGUSR1 \(save\) to job pid:\d+: sent 1/.test(f));
	stdin.write('\u001B');
	await flush();
	await until(lastFrame, f => /waiting for checkpoint… \(SIGUSR1 to job pid:\d+ sent/.test(f));
	const late = await until(
		lastFrame,
		f => f.includes("no new checkpoint 1 s after SIGUSR1: check the job's log"),
		5000,
	);
	expect(late).not.toContain('waiting for checkpoint');
	await until(
		() => child.lines.join('\n'),
		t => t.includes('got USR1'),
	);
});

test('without a RUN_DIR the save is sent and the pane says there is nothing to wait for', async () => {
	const session = await testSession({selector});
	const {lastFrame, stdin} = render(<App session={session} />);
	await until(lastFrame, f => /RANKS 1/.test(f));
	const before = child.lines.length;
	stdin.write('s');
	await flush();
	await until(lastFrame, f => f.includes('Send SIGUSR1'));
	stdin.write('y');
	await flush();
	stdin.write('\u001B');
	await flush();
	await until(lastFrame, f =>
		/SIGUSR1 to job pid:\d+ sent [\d:]+; no RUN_DIR given, so no checkpoint to wait for/.test(f),
	);
	await until(
		() => child.lines.slice(before).join('\n'),
		t => t.includes('got USR1'),
	);
});

test("a RUN_DIR that is not this job's: the box and the pane say its save is not watched", async () => {
	const session = await testSession({settings: {timeout: 1}, runDir: otherDir, selector});
	const {lastFrame, stdin} = render(<App session={session} />);
	await until(lastFrame, f => /RANKS 1/.test(f));
	const before = child.lines.length;
	await press(stdin, 's');
	const box = await until(lastFrame, f => f.includes('Send SIGUSR1'));
	expect(box).toContain("all 1 rank · RUN_DIR is not this job's: the save will not be watched");
	await press(stdin, 'y', '\u001B');
	const status = await until(lastFrame, f => f.includes("save not watched: RUN_DIR is not this job's"));
	expect(status).toMatch(/WARN SIGUSR1 to job pid:\d+ sent/);
	expect(status).not.toContain('waiting for checkpoint');
	await until(
		() => child.lines.slice(before).join('\n'),
		t => t.includes('got USR1'),
	);
});
