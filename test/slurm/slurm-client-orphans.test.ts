import {chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, expect, test} from 'vitest';
import {startCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';

// A SLURM client that hangs (a controller that does not answer: the real clients retry for 9 to 18 s) must not
// outlive a traintop killed with -9: squeue and scontrol run in process groups the orphan reaper ends.

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true});
});

/** Running, not a zombie waiting for init to reap it (the process is over: it holds nothing). */
const alive = (pid: number): boolean => {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
	} catch {
		return false;
	}
};

test('kill -9 of traintop while scontrol and squeue hang: both are gone within seconds', async () => {
	const dir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-orphans-'));
	dirs.push(dir);
	const pids = path.join(dir, 'pids');
	writeFileSync(pids, '');
	for (const client of ['squeue', 'scontrol', 'sacct']) {
		// Each records its pid, then hangs as a client waiting on a dead controller does (exec: the pid stays).
		writeFileSync(path.join(dir, client), `#!/bin/sh\necho $$ >> '${pids}'\nexec sleep 120\n`);
		chmodSync(path.join(dir, client), 0o755);
	}
	const run = startCli(['--headless', '--no-log', '--slurm-job', '4242', '--interval', '0.5'], {
		env: {PATH: `${dir}${path.delimiter}${process.env.PATH}`, SLURM_JOB_ID: ''},
	});
	const hung = () => readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
	await until(hung, list => list.length > 0, 'a SLURM client to start', 15_000);
	const started = hung();
	expect(started.every(alive)).toBe(true);
	run.child.kill('SIGKILL');
	// The reaper acts on its pipe's EOF (SIGTERM, then SIGKILL a second later); on a loaded machine its shell is
	// scheduled late (CI once saw a client still there at 5 s), so the wait is for the event, with room.
	await until(
		() => started.filter(alive),
		left => left.length === 0,
		'the hung clients to be gone',
		20_000,
	);
	expect(started.filter(alive)).toEqual([]);
});
