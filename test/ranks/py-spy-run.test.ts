import {spawn} from 'node:child_process';
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, expect, test} from 'vitest';
import {dumpPython, findPySpy} from '../../src/ranks/py-spy.js';
import {procReader} from '../../src/system/procfs.js';
import {until} from '../helpers/until.js';

// How traintop finds and runs py-spy, with executables that stand in for it where py-spy itself cannot be made to
// misbehave (hang, print something else) and a real process as the target: the guard that re-reads the target's
// identity first, the kill after the timeout, py-spy found on PATH only where it is an executable file.

const dir = mkdtempSync(path.join(tmpdir(), 'traintop-py-spy-run-'));
afterAll(() => rmSync(dir, {recursive: true, force: true}));

/** An executable `py-spy` in a directory of its own, running `body` (sh). */
function standIn(name: string, body: string, mode = 0o755): string {
	const bin = path.join(dir, name);
	mkdirSync(bin);
	const file = path.join(bin, 'py-spy');
	writeFileSync(file, `#!/bin/sh\n${body}\n`);
	chmodSync(file, mode);
	return file;
}

/** A real process to name as the target: its pid and start time. */
async function target() {
	const child = spawn('sleep', ['60'], {stdio: 'ignore'});
	const pid = child.pid!;
	const stat = await until(
		() => procReader().stat(pid),
		s => s !== null,
		'sleep started',
	);
	return {child, pid, startTime: stat!.startTime};
}

test('py-spy is found on PATH only where it is an executable file', () => {
	const plain = standIn('not-executable', 'exit 0', 0o644);
	const runnable = standIn('executable', 'exit 0');
	const asDir = path.join(dir, 'a-directory');
	mkdirSync(path.join(asDir, 'py-spy'), {recursive: true});
	const pathEnv = [path.dirname(plain), asDir, path.dirname(runnable)].join(path.delimiter);
	expect(findPySpy(pathEnv)).toBe(runnable);
	expect(findPySpy(path.dirname(plain))).toBeNull();
	expect(findPySpy('')).toBeNull();
});

test('a target whose start time is not the one named is gone: py-spy is not run', async () => {
	const marker = path.join(dir, 'ran');
	const bin = standIn('marks', `touch '${marker}'\necho '[]'`);
	const {child, pid, startTime} = await target();
	try {
		expect(await dumpPython(bin, {pid, startTime: startTime + 1}, procReader())).toEqual({kind: 'gone'});
		expect(existsSync(marker)).toBe(false);
		// The right identity: it runs, with the pid and the read-only flags.
		expect(await dumpPython(bin, {pid, startTime}, procReader())).toMatchObject({kind: 'threads', threads: []});
		expect(existsSync(marker)).toBe(true);
	} finally {
		child.kill('SIGKILL');
	}
});

test('py-spy is run as dump --pid PID --json --nonblocking, and killed when it does not answer in time', async () => {
	const args = path.join(dir, 'args');
	const pidFile = path.join(dir, 'hung-pid');
	const bin = standIn('hangs', `echo "$@" > '${args}'\necho $$ > '${pidFile}'\nexec sleep 60`);
	const {child, pid, startTime} = await target();
	try {
		const started = Date.now();
		const dump = await dumpPython(bin, {pid, startTime}, procReader(), 300);
		expect(dump).toMatchObject({kind: 'failed', problem: 'py-spy gave no answer in 0.3 s (killed)', output: null});
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(readFileSync(args, 'utf8').trim()).toBe(`dump --pid ${pid} --json --nonblocking`);
		// Killed, not left behind.
		const hung = Number(readFileSync(pidFile, 'utf8'));
		await until(
			() => procReader().stat(hung),
			stat => stat === null || stat.state === 'Z',
			'the stand-in killed',
		);
	} finally {
		child.kill('SIGKILL');
	}
});

test('what is not its JSON is kept as its text; a failure keeps its words', async () => {
	const {child, pid, startTime} = await target();
	try {
		const prose = standIn('prose', "echo 'Process 1: python'");
		expect(await dumpPython(prose, {pid, startTime}, procReader())).toMatchObject({
			kind: 'failed',
			problem: 'py-spy printed no stack list',
			output: 'Process 1: python',
		});
		const fails = standIn('fails', "echo 'Error: Failed to find python version from target process' >&2\nexit 1");
		expect(await dumpPython(fails, {pid, startTime}, procReader())).toMatchObject({
			kind: 'failed',
			problem: 'Error: Failed to find python version from target process',
		});
	} finally {
		child.kill('SIGKILL');
	}
});
