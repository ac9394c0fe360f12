import {rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, afterEach, describe, expect, it} from 'vitest';
import {PROTOCOL} from '../../src/agent/protocol.js';
import {wireSnapshot} from '../../src/agent/wire-snapshot.js';
import {type FleetNodes, fleetNodes} from '../helpers/fleet-nodes.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';

// Which agents the viewer reads: protocol 2 (each scan's ranks whole) and its own 3; an agent of a protocol it does
// not know is a node lost with the reason, never read. Real viewer, agents played by fake ssh commands.

const nodes: FleetNodes = fleetNodes('traintop-protocols-');
let run: CliRun | null = null;

afterEach(() => {
	run?.child.kill('SIGKILL');
	run = null;
});
afterAll(() => rmSync(nodes.dir, {recursive: true, force: true}));

/** An agent speaking `protocol`: its hello and one snapshot, then silence with its stdin open. */
function agentOf(host: string, protocol: number): string {
	const now = Date.now();
	const hello = {
		kind: 'hello',
		protocol,
		host,
		version: '0.0.9',
		pid: 4000,
		clock: now,
		interval_ms: 1000,
		run_dir: null,
	};
	const snapshot = {kind: 'snapshot', host, snapshot: wireSnapshot(snapshotOf(host, now), null)};
	const file = path.join(nodes.dir, `${host}.jsonl`);
	writeFileSync(file, `${JSON.stringify(hello)}\n${JSON.stringify(snapshot)}\n`);
	return `cat ${file}; exec sleep 600`;
}

describe('agents of other protocol versions', () => {
	it(`a protocol-2 agent is read; one of protocol ${PROTOCOL + 1} is lost until updated`, async () => {
		const env = {PATH: nodes.path, FAKE_AGENT_old: agentOf('old', 2), FAKE_AGENT_new: agentOf('new', PROTOCOL + 1)};
		const args = ['--headless', '--hosts', 'old,new', '--ssh-command', nodes.ssh, '--no-log', '--interval', '1'];
		run = startCli(args, {env});
		const r = run;
		// Its hello taken and its snapshot read (the GPU line is its snapshot's); the other's never read.
		const read = /node old connected \(traintop 0\.0\.9/;
		await r.waitFor(
			o => read.test(o.stderr) && /old GPU: not monitored/.test(o.stderr) && /update traintop on new/.test(o.stderr),
			20_000,
		);
		expect(r.stderr()).toContain(
			`node new lost: agent speaks agent protocol ${PROTOCOL + 1} (traintop 0.0.9), this traintop speaks ${PROTOCOL}: update traintop on new`,
		);
		expect(r.stderr()).not.toMatch(/new GPU|node new connected/);
	});
});
