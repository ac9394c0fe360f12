import {execFileSync} from 'node:child_process';
import {chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import type {DemoJob} from '../../src/demo/job.js';
import {CLI} from '../helpers/dist.js';
import {checkpointKinds, startSmallJob} from '../helpers/small-demo-job.js';
import {Terminal} from '../helpers/tmux.js';
import {until} from '../helpers/until.js';

// The many-node screen in a real terminal (tmux, 120×40): `traintop --hosts node1,node2` with the ssh command
// replaced by a script that starts each "node"'s agent here, beside its own demo job (as fleet-headless.test.ts
// does). Real agents, a real SIGKILL to one of them; the screen read with capture-pane.

let dir = '';
let jobs: DemoJob[] = [];
let term: Terminal | null = null;

/** ssh's arguments: [-l user] host 'remote command'. Runs the remote command here, with this node's extra flags. */
const FAKE_SSH = `#!/bin/sh
while [ "$1" = "-l" ] || [ "$1" = "-o" ]; do shift 2; done
host="$1"; shift
extra=$(eval echo "\\$FAKE_ARGS_$host")
exec sh -c "$* $extra"
`;

beforeAll(async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-fleet-tui-'));
	writeFileSync(path.join(dir, 'fake-ssh'), FAKE_SSH);
	chmodSync(path.join(dir, 'fake-ssh'), 0o755);
	// `traintop` on the "node": this build.
	const bin = path.join(dir, 'bin');
	mkdirSync(bin);
	writeFileSync(path.join(bin, 'traintop'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`);
	chmodSync(path.join(bin, 'traintop'), 0o755);
	jobs = await Promise.all([
		startSmallJob(path.join(dir, 'run1'), 29_721),
		startSmallJob(path.join(dir, 'run2'), 29_722),
	]);
}, 60_000);

afterAll(async () => {
	await Promise.all(jobs.map(job => job.stop()));
	rmSync(dir, {recursive: true, force: true});
});

afterEach(() => {
	term?.close();
	term = null;
});

/** Every process below `pid`, children first found first. */
function descendants(pid: number): number[] {
	let children: number[] = [];
	try {
		children = execFileSync('pgrep', ['-P', String(pid)], {encoding: 'utf8'})
			.trim()
			.split('\n')
			.map(Number);
	} catch {
		// pgrep exits 1 when there is none
	}
	return children.flatMap(child => [child, ...descendants(child)]);
}

const alive = (pid: number): boolean => {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
};

/** The nodes pane's row of `node` (a line that starts with the cursor lead and the name). */
const row = (screen: string, node: string): string =>
	screen.split('\n').find(line => new RegExp(`^[› ] ${node} `).test(line)) ?? '';

describe('traintop --hosts on a terminal: the many-node screen', () => {
	it('both nodes connected with their ranks; a killed agent is lost, then back; Enter opens a node, Esc comes back, q quits with no agent left', async () => {
		term = new Terminal(120, 40);
		const t = term;
		t.keys(`PS1='$ '; echo shell-before-traintop`, 'Enter');
		await t.until(text => text.includes('shell-before-traintop'));
		const env = [
			`PATH=${path.join(dir, 'bin')}:"$PATH"`,
			`FAKE_ARGS_node1='--pid ${jobs[0]!.launcherPid}'`,
			`FAKE_ARGS_node2='--pid ${jobs[1]!.launcherPid}'`,
		].join(' ');
		const flags = `--hosts node1,node2 --ssh-command ${path.join(dir, 'fake-ssh')} --interval 0.5 --nvidia-smi /nonexistent --log-file ${path.join(dir, 'mem.jsonl')}`;
		t.keys(`env ${env} ${process.execPath} ${CLI} ${flags}; echo "EXIT=$?"`, 'Enter');

		const both = await t.until(
			text => /connected/.test(row(text, 'node1')) && /connected/.test(row(text, 'node2')) && /^RANKS /m.test(text),
			'both nodes connected',
			30_000,
		);
		expect(both).not.toContain('shell-before-traintop');
		expect(both).toMatch(/^NODES 2 nodes · 2 connected/m);
		expect(both.trimEnd().split('\n').length).toBeLessThanOrEqual(39);
		// Each node's two ranks, in its own job (launcher pids are per node), with the host column.
		const ranks = await t.until(
			text => ['node1', 'node2'].every(node => new RegExp(`^ {3}${node} +[01] +\\d+ `, 'm').test(text)),
			"each node's ranks with their host",
			20_000,
		);
		expect(ranks).toMatch(/^RANKS 4 in 2 jobs/m);
		expect(ranks).toMatch(/^JOB node1\/launcher\.py:\d+ · 2 ranks/m);
		expect(ranks).toMatch(/^JOB node2\/launcher\.py:\d+ · 2 ranks/m);
		expect(ranks).toMatch(/Enter open/);

		// Enter on node2: its own full view, its agent named on the line above it.
		t.keys('Down', 'Enter');
		const opened = await t.until(
			text => /^NODE node2 · connected \(traintop [^,]+, agent pid \d+\)/m.test(text) && /^RANKS 2 /m.test(text),
			"node2's own view",
		);
		expect(opened).toMatch(/^MEMORY node2/m);
		expect(opened).toMatch(/s\/e: this node's ranks, through its agent/);
		expect(opened).toMatch(/Esc nodes/);
		const agentPid = Number(/agent pid (\d+)/.exec(opened)![1]);
		expect(descendants(t.panePid())).toContain(agentPid);

		// Esc: back to the nodes, the cursor still on node2.
		t.keys('Escape');
		await t.until(text => /^NODES 2 nodes/m.test(text) && /^› node2 /m.test(text), 'back to the nodes');

		// Its agent killed: node2 is lost (node1 stays connected), then reconnected by a new agent.
		process.kill(agentPid, 'SIGKILL');
		const lost = await t.until(text => /\blost\b/.test(row(text, 'node2')), 'node2 lost', 15_000);
		expect(row(lost, 'node2')).toMatch(/CRIT +lost/);
		expect(row(lost, 'node1')).toMatch(/connected/);
		const back = await t.until(text => /connected/.test(row(text, 'node2')), 'node2 connected again', 30_000);
		expect(row(back, 'node2')).toMatch(/1 reconnect\b/);
		// Both changes of its link are in the alerts pane, as events naming the node.
		const alerts = await t.until(
			text => /CRIT node node2 lost: agent /.test(text) && /• +ok +node node2 connected \(traintop/.test(text),
			'the link changes in the alerts',
			10_000,
		);
		expect(alerts).toMatch(/^ALERTS /m);

		// q: the shell's screen back, exit 0, and every agent (and the fake ssh around it) gone with traintop.
		const below = descendants(t.panePid());
		expect(below.length).toBeGreaterThan(2);
		t.keys('q');
		const after = await t.until(text => /^EXIT=\d+/m.test(text), 'traintop to exit');
		expect(after).toContain('EXIT=0');
		expect(after).toContain('shell-before-traintop');
		expect(after).not.toMatch(/^NODES /m);
		await until(
			() => below.filter(alive),
			left => left.length === 0,
			'every agent to exit with traintop',
			10_000,
		);
	}, 120_000);

	it("s on node1: the box lists node1's ranks of its job; y sends through node1's agent and the job really saves", async () => {
		term = new Terminal(120, 40);
		const t = term;
		const [run1, run2] = [path.join(dir, 'run1'), path.join(dir, 'run2')];
		// Each agent watches its job's run dir: the save is confirmed by the new checkpoint in node1's snapshots.
		const env = [
			`PATH=${path.join(dir, 'bin')}:"$PATH"`,
			`FAKE_ARGS_node1='--pid ${jobs[0]!.launcherPid} ${run1}'`,
			`FAKE_ARGS_node2='--pid ${jobs[1]!.launcherPid} ${run2}'`,
		].join(' ');
		const flags = `--hosts node1,node2 --ssh-command ${path.join(dir, 'fake-ssh')} --interval 0.5 --nvidia-smi /nonexistent --no-log`;
		t.keys(`env ${env} ${process.execPath} ${CLI} ${flags}; echo "EXIT=$?"`, 'Enter');
		await t.until(
			text => ['node1', 'node2'].every(node => new RegExp(`^ {3}${node} +[01] +\\d+ `, 'm').test(text)),
			"each node's ranks with their host",
			30_000,
		);
		const before = {run1: await checkpointKinds(run1), run2: await checkpointKinds(run2)};

		// The cursor is on node1: its job is node1's own (a launcher's pid names it on node1 only).
		t.keys('s');
		const box = await t.until(
			text => /Send SIGUSR1 \(save\) to job node1\/launcher\.py:\d+\?/.test(text) && /node1: ranks/.test(text),
			'the confirm box',
		);
		expect(box).toContain(`2 ranks on 1 node · save watched in ${run1} on node1`);
		expect(box).toMatch(/route: agents — each node's agent sends to its own ranks/);
		expect(box).toMatch(/node1: ranks 0, 1 \(2 of 2 here\)/);
		expect(box).toMatch(/rank 0 {2}pid \d+ {2}handles SIGUSR1/);
		expect(box).toMatch(/rank 1 {2}pid \d+ {2}handles SIGUSR1/);
		expect(box).not.toMatch(/node2: rank/);

		t.keys('y');
		const saved = await t.until(text => /saved \S+ in [\d.]+ s/.test(text), 'the save confirmed', 30_000);
		expect(saved).toMatch(/SIGUSR1 \(save\) to job node1\/launcher\.py:\d+: sent 2/);
		expect(saved).toMatch(/node1 rank 0 {2}pid \d+ {2}sent/);
		expect(saved).toMatch(/node1 rank 1 {2}pid \d+ {2}sent/);
		// The job on node1 really saved, and only it: node2's job was not signalled.
		expect(await checkpointKinds(run1)).toEqual([...before.run1, 'manual']);
		expect(await checkpointKinds(run2)).toEqual(before.run2);

		t.keys('Escape');
		await t.until(text => /^NODES 2 nodes/m.test(text) && !/sent 2/.test(text), 'the result box closed');
		t.keys('q');
		const after = await t.until(text => /^EXIT=\d+/m.test(text), 'traintop to exit');
		expect(after).toContain('EXIT=0');
	}, 120_000);
});
