import {chmodSync, existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {alive, type FleetNodes, fleetNodes} from '../helpers/fleet-nodes.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {until} from '../helpers/until.js';

// A big cluster.yaml whose nodes do not answer (an ssh that hangs in its handshake): the viewer makes at most
// MAX_CONNECTING connections at once, the others wait their turn, and SIGTERM ends every one of them and the
// viewer (a 3000-node file spawned ssh at 50 a second and outlived SIGTERM by 7 s).

let nodes: FleetNodes;
let run: CliRun | null = null;

const NODES = 80;
/** fleet.ts's MAX_CONNECTING: pdsh's default fan-out. */
const MAX_CONNECTING = 32;

beforeAll(() => {
	nodes = fleetNodes('traintop-connect-cap-');
	// An ssh that never connects: says it started, then hangs.
	writeFileSync(
		path.join(nodes.dir, 'hanging-ssh'),
		`#!/bin/sh\necho $$ >> ${path.join(nodes.dir, 'started')}\nexec sleep 600\n`,
	);
	chmodSync(path.join(nodes.dir, 'hanging-ssh'), 0o755);
	const yaml = ['nodes:'];
	for (let i = 1; i <= NODES; i++)
		yaml.push(`  - name: n${i}`, `    host: 10.9.0.${i}`, '    transport: ssh', '    gpus: []');
	writeFileSync(path.join(nodes.dir, 'cluster.yaml'), `${yaml.join('\n')}\n`);
});

afterAll(() => {
	rmSync(nodes.dir, {recursive: true, force: true});
});

afterEach(() => {
	run?.child.kill('SIGKILL');
	run = null;
});

const started = (): number[] => {
	const file = path.join(nodes.dir, 'started');
	return existsSync(file)
		? readFileSync(file, 'utf8')
				.split('\n')
				.filter(line => line !== '')
				.map(Number)
		: [];
};

describe(`a cluster.yaml of ${NODES} nodes that do not answer`, () => {
	it(`connects ${MAX_CONNECTING} at a time; SIGTERM ends them all and exits 0`, async () => {
		const cluster = path.join(nodes.dir, 'cluster.yaml');
		const args = ['--headless', '--cluster', cluster, '--ssh-command', path.join(nodes.dir, 'hanging-ssh')];
		run = startCli([...args, '--no-log', '--nvidia-smi', '/nonexistent', '--interval', '1'], {env: {PATH: nodes.path}});
		const r = run;
		await r.waitFor(o => /watching 80 nodes/.test(o.stderr), 20_000);
		expect(r.stderr()).toMatch(/watching 80 nodes \(n1 at 10\.9\.0\.1, n2 at 10\.9\.0\.2, /);
		await until(started, list => list.length >= MAX_CONNECTING, `${MAX_CONNECTING} connections started`, 30_000);
		r.child.kill('SIGTERM');
		expect(await r.exited).toBe(0);
		// None waiting its turn was started (no slot came free: none answered), and none is left behind.
		expect(started().length).toBe(MAX_CONNECTING);
		await until(
			() => started().filter(alive),
			left => left.length === 0,
			'every ssh ended',
			10_000,
		);
	}, 90_000);
});
