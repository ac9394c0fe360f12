import {execFileSync, spawn} from 'node:child_process';
import {chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {ROOT, requireBuild} from '../helpers/dist.js';
import {alive} from '../helpers/fleet-nodes.js';
import {until} from '../helpers/until.js';

// bench/fleet.mjs stopped by SIGTERM halfway (its viewer, its agents, the demo jobs and a tmux server running):
// it stops all of them and removes its work dir, as traintop does on a signal. Everything it starts names its
// work dir (under TMPDIR, here a fresh one) on its command line, so what is left is what names that dir.
// htop is a stand-in (the bench only measures it).

let scratch = '';

/** Every process whose command line names `dir`, but this test's own. */
function processesNaming(dir: string): number[] {
	let out = '';
	try {
		out = execFileSync('pgrep', ['-f', dir], {encoding: 'utf8'});
	} catch {
		return [];
	}
	return out
		.trim()
		.split('\n')
		.map(Number)
		.filter(pid => pid !== process.pid && alive(pid));
}

afterEach(() => {
	for (const pid of processesNaming(scratch)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// gone
		}
	}
	rmSync(scratch, {recursive: true, force: true});
});

describe('bench/fleet.mjs', () => {
	it('SIGTERM while measuring: no viewer, agent, demo job or tmux server is left, nor its work dir', async () => {
		requireBuild();
		scratch = mkdtempSync(path.join(tmpdir(), 'traintop-bench-signal-'));
		const bin = path.join(scratch, 'bin');
		mkdirSync(bin);
		writeFileSync(path.join(bin, 'htop'), '#!/bin/sh\nexec sleep 100000\n');
		chmodSync(path.join(bin, 'htop'), 0o755);
		const tmp = path.join(scratch, 'tmp');
		mkdirSync(tmp);
		const bench = spawn(process.execPath, [path.join(ROOT, 'bench/fleet.mjs'), '--nodes', '2', '--duration', '60'], {
			env: {...process.env, PATH: `${bin}:${process.env.PATH}`, TMPDIR: tmp, SETTLE_MS: '60000'},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let out = '';
		bench.stdout.on('data', chunk => {
			out += chunk;
		});
		bench.stderr.on('data', chunk => {
			out += chunk;
		});
		const exited = new Promise<number | string>(resolve =>
			bench.once('close', (code, signal) => resolve(code ?? signal ?? -1)),
		);
		await until(
			() => out,
			text => /headless viewer on 2 nodes: measuring/.test(text),
			'the bench measuring',
			180_000,
			200,
		);
		const work = readdirSync(tmp).find(name => name.startsWith('traintop-bench-fleet-'));
		expect(work).toBeDefined();
		const workDir = path.join(tmp, work!);
		// Its viewer, its agents (their run dirs are in the work dir) and the demo jobs' ranks.
		await until(
			() => processesNaming(workDir),
			pids => pids.length > 10,
			'the viewer, agents and jobs running',
			60_000,
		);
		const socket = `traintop-bench-fleet-${bench.pid}`;
		expect(() => execFileSync('tmux', ['-L', socket, 'list-sessions'], {encoding: 'utf8'})).not.toThrow();

		bench.kill('SIGTERM');
		const code = await exited;
		expect(processesNaming(workDir)).toEqual([]);
		expect(() => execFileSync('tmux', ['-L', socket, 'list-sessions'], {stdio: 'ignore'})).toThrow();
		expect(existsSync(workDir)).toBe(false);
		expect(out).toMatch(/SIGTERM: stopping the viewers, agents, jobs and tmux server/);
		expect(code).toBe(143);
	}, 300_000);
});
