import {chmodSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {hostname, tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type DemoJob, startDemoJob} from '../../src/demo/job.js';
import {findPython} from '../../src/demo/python.js';
import {runCli} from '../helpers/run-cli.js';
import {checkpointKinds} from '../helpers/small-demo-job.js';

// `traintop signal emergency RUN_DIR --hosts local --wait` through a real agent beside the real demo job: the ranks
// get SIGTERM, save an emergency checkpoint and exit 99; the command says both, the checkpoint and, for the node, the
// job's exit. An exit status can only be read from a zombie: here the launcher's parent is a `sleep` that never
// reaps it, so its agent reads the launcher's exit (99, rank 0's) as a real node's would whenever it is there to see.

let dir = '';
let job: DemoJob | null = null;

beforeAll(async () => {
	dir = mkdtempSync(path.join(tmpdir(), 'traintop-emergency-agents-'));
	const python = findPython();
	if (python === null) throw new Error('python3 is needed for the demo job');
	// Runs the launcher, then becomes a parent that never calls wait(): its zombie keeps its exit status.
	const unreaped = path.join(dir, 'python-unreaped');
	writeFileSync(unreaped, `#!/bin/sh\n${python} "$@" &\nexec sleep 120\n`);
	chmodSync(unreaped, 0o755);
	job = await startDemoJob({
		runDir: path.join(dir, 'run'),
		ranks: 2,
		workers: 0,
		stepSeconds: 0.05,
		saveEvery: 0,
		shutdownTimeoutS: 3,
		masterPort: 29_731,
		python: unreaped,
	});
	await job.ranksReady();
}, 60_000);

afterAll(async () => {
	await job?.stop();
	rmSync(dir, {recursive: true, force: true});
});

interface Body {
	route: string;
	results: {target: string; outcome: string}[];
	checkpoint: {saved: boolean; kind: string};
	exits: {node: string; state: string; exit: unknown; ranks: {rank: number; exited: boolean}[]; text: string}[];
}

describe('traintop signal emergency through the agents', () => {
	it("says the emergency checkpoint, then that the node's ranks exited 99", async () => {
		const runDir = path.join(dir, 'run');
		const node = hostname().split('.')[0]!;
		const args = ['signal', 'emergency', runDir, '--hosts', 'local', '--yes', '--wait', '--json', '--timeout', '30'];
		const done = await runCli([...args, '--interval', '0.5', '--nvidia-smi', '/nonexistent'], {timeoutMs: 60_000});
		expect(done.code, done.stderr).toBe(0);
		const body = JSON.parse(done.stdout) as Body;
		expect(body.route).toBe('agents');
		expect(body.results.map(r => [r.target, r.outcome])).toEqual([
			[`${node} rank 0`, 'sent'],
			[`${node} rank 1`, 'sent'],
		]);
		expect(body.checkpoint).toMatchObject({saved: true, kind: 'emergency'});
		expect(await checkpointKinds(runDir)).toEqual(['emergency']);
		expect(body.exits).toHaveLength(1);
		expect(body.exits[0]).toMatchObject({node, state: 'exited', exit: {code: 99, signal: null}});
		expect(body.exits[0]!.ranks).toMatchObject([
			{rank: 0, exited: true},
			{rank: 1, exited: true},
		]);
		expect(body.exits[0]!.text).toBe(`${node}: ranks 0, 1 exited after SIGTERM (exit 99 — saved for requeue)`);
		// The job really ended so: its launcher said rank 0's code was its own.
		await job!.waitForLine(/^launcher: exiting with code 99$/);
	}, 90_000);
});
