import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {CLI} from '../helpers/dist.js';
import {alive, fleetNodesForThisFile} from '../helpers/fleet-nodes.js';
import {ownedByTest} from '../helpers/owned-by-test.js';
import {startCli} from '../helpers/run-cli.js';
import {Terminal} from '../helpers/tmux.js';
import {until} from '../helpers/until.js';

// A viewer whose only link drops lives on: `--hosts node1` has one connection, and when its agent dies nothing else
// keeps Node's event loop busy but the viewer's own timers. It reconnects with backoff, says so, and ends only when
// told to (SIGTERM: its final record, exit 0; q in the TUI). Real agents through the replaceable ssh command, killed
// for real three times.

const nodes = fleetNodesForThisFile('traintop-lost-link-');
const owned = ownedByTest();

type Line = {
	event?: string;
	host?: string;
	address?: string | null;
	state?: string;
	agent_pid?: number;
	timestamp?: string;
};

const lines = (text: string): Line[] =>
	text
		.split('\n')
		.filter(line => line.startsWith('{'))
		.map(line => JSON.parse(line) as Line);

/** The agent pids node1 said hello with, in order. */
const agentPids = (stdout: string): number[] => [
	...new Set(
		lines(stdout)
			.filter(l => l.event === 'node' && l.host === 'node1' && l.state === 'connected')
			.map(l => l.agent_pid ?? 0),
	),
];

describe('a viewer with one link', () => {
	it('headless: three agent kills, each reconnected; SIGTERM writes the final record and exits 0', async () => {
		// One record an hour: the only record the test can see is the one written on the way out.
		const args = ['--headless', '--json', '--hosts', 'node1', '--ssh-command', nodes.ssh, '--interval', '0.5'];
		const r = owned.run(
			startCli([...args, '--log-interval', '3600', '--no-log', '--nvidia-smi', '/nonexistent'], {
				env: {PATH: nodes.path},
			}),
		);
		// node1's first snapshot (its GPU line is said once, with it): the window then holds a sample to write on the
		// way out, however quickly each agent after it is killed (on a loaded machine, before its first snapshot).
		await r.waitFor(o => o.stderr.includes('node1 GPU: not monitored'), 60_000);
		for (let kill = 1; kill <= 3; kill++) {
			await r.waitFor(o => agentPids(o.stdout).length === kill, 60_000);
			const pid = agentPids(r.stdout()).at(-1)!;
			process.kill(pid, 'SIGKILL');
			await r.waitFor(
				o => lines(o.stdout).filter(l => l.host === 'node1' && l.state === 'lost').length === kill,
				20_000,
			);
		}
		// Back a fourth time: the viewer outlived every drop.
		await r.waitFor(o => agentPids(o.stdout).length === 4, 60_000);
		expect(r.stderr()).toMatch(/WARN node node1 lost: agent exited 137\b.*; reconnecting/);
		expect(r.stderr()).toContain('watching 1 node (node1) every 0.5 s');
		expect(lines(r.stdout()).some(l => l.timestamp)).toBe(false);

		r.child.kill('SIGTERM');
		expect(await r.exited).toBe(0);
		const records = lines(r.stdout()).filter(l => l.timestamp);
		expect(records.length).toBe(1);
		expect(records[0]?.host).toBe('node1');
		await until(
			() => agentPids(r.stdout()).filter(alive),
			left => left.length === 0,
			'the agents gone',
			10_000,
		);
	}, 180_000);

	it("a node whose address is not its name (cluster.yaml's host) is named with it", async () => {
		const cluster = path.join(nodes.dir, 'cluster.yaml');
		writeFileSync(cluster, 'nodes:\n  - name: gpu1\n    host: addr1\n    transport: ssh\n    gpus: []\n');
		const args = ['--headless', '--json', '--cluster', cluster, '--ssh-command', nodes.ssh, '--interval', '0.5'];
		const r = owned.run(startCli([...args, '--no-log', '--nvidia-smi', '/nonexistent'], {env: {PATH: nodes.path}}));
		await r.waitFor(o => /node gpu1 at addr1 connected \(traintop/.test(o.stderr), 30_000);
		expect(r.stderr()).toContain('watching 1 node (gpu1 at addr1) every 0.5 s');
		const connected = (l: Line) => l.event === 'node' && l.state === 'connected';
		await r.waitFor(o => lines(o.stdout).some(connected), 10_000);
		expect(lines(r.stdout()).find(connected)).toMatchObject({host: 'gpu1', address: 'addr1'});
		r.child.kill('SIGTERM');
		expect(await r.exited).toBe(0);
	}, 60_000);

	it('the many-node TUI: three agent kills, each reconnected; still running; q exits 0', async () => {
		const t = owned.term(new Terminal(120, 40));
		t.keys(`PS1='$ '; echo shell-before-traintop`, 'Enter');
		await t.until(text => text.includes('shell-before-traintop'));
		const flags = `--hosts node1 --ssh-command ${nodes.ssh} --interval 0.5 --nvidia-smi /nonexistent --no-log`;
		t.keys(`env PATH=${nodes.path} ${process.execPath} ${CLI} ${flags}; echo "EXIT=$?"`, 'Enter');
		const row = (screen: string) => screen.split('\n').find(line => /^[› ] node1 /.test(line)) ?? '';
		let last = 0;
		for (let kill = 1; kill <= 3; kill++) {
			const screen = await t.until(
				text =>
					/connected/.test(row(text)) && (kill === 1 || new RegExp(`\\b${kill - 1} reconnects?\\b`).test(row(text))),
				`node1 connected (${kill - 1} reconnects)`,
				60_000,
			);
			expect(screen).not.toMatch(/^EXIT=/m);
			// Its agent's pid: Enter opens the node, whose banner names it.
			t.keys('Enter');
			const opened = await t.until(text => /agent pid \d+/.test(text) && /^NODE node1/m.test(text), 'node1 opened');
			const pid = Number(/agent pid (\d+)/.exec(opened)![1]);
			expect(pid).not.toBe(last);
			last = pid;
			t.keys('Escape');
			await t.until(text => /^NODES /m.test(text), 'back to the nodes');
			process.kill(pid, 'SIGKILL');
			await t.until(text => /\blost\b/.test(row(text)) || /^EXIT=/m.test(text), 'node1 lost', 20_000);
		}
		const back = await t.until(
			text => (/connected/.test(row(text)) && /\b3 reconnects\b/.test(row(text))) || /^EXIT=/m.test(text),
			'node1 connected again after three kills',
			60_000,
		);
		expect(back).not.toMatch(/^EXIT=/m);
		t.keys('q');
		const after = await t.until(text => /^EXIT=\d+/m.test(text), 'traintop to exit');
		expect(after).toContain('EXIT=0');
	}, 240_000);
});
