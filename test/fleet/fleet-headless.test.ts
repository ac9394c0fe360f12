import {chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import type {DemoJob} from '../../src/demo/job.js';
import {CLI} from '../helpers/dist.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {startSmallJob} from '../helpers/small-demo-job.js';
import {until} from '../helpers/until.js';

// Many nodes, one view: `traintop --headless --json --hosts node1,node2` with the ssh command replaced (the way
// GIT_SSH_COMMAND is) by a script that starts each "node"'s agent here: its own host name and its own demo job, a
// login banner before it (a line that is not a message). Real agents, real jobs, real signals to the agents.

let dir = '';
let jobs: DemoJob[] = [];
let run: CliRun | null = null;

/** ssh's arguments: [-l user] host 'remote command'. Prints a banner, then runs the remote command here. */
const FAKE_SSH = `#!/bin/sh
while [ "$1" = "-l" ] || [ "$1" = "-o" ]; do shift 2; done
host="$1"; shift
echo "Welcome to $host (this line is not an agent message)"
extra=$(eval echo "\\$FAKE_ARGS_$host")
exec sh -c "$* $extra"
`;

type Line = {event?: string; host?: string; state?: string; garbage?: number; agent_pid?: number; timestamp?: string};

const lines = (text: string): Line[] =>
	text
		.split('\n')
		.filter(line => line.startsWith('{'))
		.map(line => JSON.parse(line) as Line);

beforeAll(async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-fleet-'));
	const bin = path.join(dir, 'bin');
	writeFileSync(path.join(dir, 'fake-ssh'), FAKE_SSH);
	chmodSync(path.join(dir, 'fake-ssh'), 0o755);
	// `traintop` on the "node": this build.
	const shim = path.join(bin, 'traintop');
	mkdirSync(bin);
	writeFileSync(shim, `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`);
	chmodSync(shim, 0o755);
	jobs = await Promise.all([
		startSmallJob(path.join(dir, 'run1'), 29_711),
		startSmallJob(path.join(dir, 'run2'), 29_712),
	]);
}, 60_000);

afterAll(async () => {
	await Promise.all(jobs.map(job => job.stop()));
	rmSync(dir, {recursive: true, force: true});
});

afterEach(() => {
	run?.child.kill('SIGKILL');
	run = null;
});

function startFleet(): CliRun {
	const env = {
		PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`,
		FAKE_ARGS_node1: `--pid ${jobs[0]!.launcherPid}`,
		FAKE_ARGS_node2: `--pid ${jobs[1]!.launcherPid}`,
	};
	const args = ['--headless', '--json', '--hosts', 'node1,node2', '--ssh-command', path.join(dir, 'fake-ssh')];
	return startCli(
		[
			...args,
			'--interval',
			'0.5',
			'--log-interval',
			'1',
			'--log-file',
			path.join(dir, 'mem.jsonl'),
			'--nvidia-smi',
			'/nonexistent',
		],
		{
			env,
		},
	);
}

describe('traintop --hosts: one view of many nodes', () => {
	it("each node's records, its own log, its banner counted; a stopped agent goes stale, a killed one is reconnected", async () => {
		run = startFleet();
		const connected = (host: string) => (o: {stdout: string}) =>
			lines(o.stdout).some(l => l.event === 'node' && l.host === host && l.state === 'connected');
		await run.waitFor(connected('node1'), 20_000);
		await run.waitFor(connected('node2'), 20_000);
		// A record from each node, named after it, as the memory log's own records are.
		await run.waitFor(
			o => ['node1', 'node2'].every(h => lines(o.stdout).some(l => l.timestamp && l.host === h)),
			20_000,
		);
		expect(run.stderr()).toMatch(/watching 2 nodes \(node1, node2\) every 0\.5 s; memory logs .*mem\.<host>\.jsonl/);
		const node2 = lines(run.stdout()).find(l => l.event === 'node' && l.host === 'node2' && l.state === 'connected');
		// The banner came before the agent's hello: skipped and counted, nothing lost.
		expect(node2?.garbage).toBe(1);
		// --json's first line: the stream's schema_version and the nodes it watches.
		expect(JSON.parse(run.stdout().split('\n')[0]!)).toEqual({
			schema_version: 1,
			event: 'start',
			time: expect.any(String),
			version: expect.stringMatching(/^\d+\.\d+\.\d+/),
			hosts: ['node1', 'node2'],
		});

		// A hung agent (stopped): node2 goes stale within 3 intervals; node1 keeps reporting meanwhile.
		const agentPid = node2?.agent_pid ?? 0;
		expect(agentPid).toBeGreaterThan(1);
		process.kill(agentPid, 'SIGSTOP');
		await run.waitFor(o => lines(o.stdout).some(l => l.host === 'node2' && l.state === 'stale'), 10_000);
		const before = run.stdout().length;
		await run.waitFor(o => lines(o.stdout.slice(before)).some(l => l.timestamp && l.host === 'node1'), 10_000);
		// Killed: lost, then a new connection with a new agent.
		process.kill(agentPid, 'SIGKILL');
		await run.waitFor(o => lines(o.stdout).some(l => l.host === 'node2' && l.state === 'lost'), 10_000);
		await run.waitFor(
			o => lines(o.stdout).some(l => l.host === 'node2' && l.state === 'connected' && l.agent_pid !== agentPid),
			20_000,
		);
		// The agent was killed under its ssh (here the fake ssh's shell): the connection ended, said with its exit.
		expect(run.stderr()).toMatch(/WARN node node2 lost: agent exited 137\b.*; reconnecting/);

		// Ended: every agent goes with it (their stdin closes), and each node's log holds that node's records only.
		const pids = lines(run.stdout())
			.filter(l => l.event === 'node' && l.state === 'connected')
			.map(l => l.agent_pid ?? 0);
		run.child.kill('SIGTERM');
		expect(await run.exited).toBe(0);
		for (const pid of pids) await waitGone(pid);
		for (const host of ['node1', 'node2']) {
			const log = path.join(dir, `mem.${host}.jsonl`);
			expect(existsSync(log)).toBe(true);
			const hosts = new Set(lines(readFileSync(log, 'utf8')).map(l => l.host));
			expect([...hosts]).toEqual([host]);
		}
	}, 90_000);
});

/** Resolves once `pid` has exited (kill 0 fails). */
async function waitGone(pid: number): Promise<void> {
	const alive = () => {
		try {
			process.kill(pid, 0);
			return true;
		} catch {
			return false;
		}
	};
	await until(alive, up => !up, `agent ${pid} to exit with traintop`, 10_000);
}
