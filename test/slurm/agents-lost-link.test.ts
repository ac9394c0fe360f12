import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {alive, fleetNodes} from '../helpers/fleet-nodes.js';
import {ownedByTest} from '../helpers/owned-by-test.js';
import {startCli} from '../helpers/run-cli.js';
import {slurmUnavailable} from '../helpers/slurm-cluster.js';
import {cancelJobsAndWait, slurmForThisFile} from '../helpers/slurm-suite.js';
import {until} from '../helpers/until.js';

// `--slurm-job J --agents` carries every node through one `srun --overlap` step: its agent killed, that one link is
// gone and nothing else keeps the viewer's event loop busy. On the real one-node SLURM: three kills, each a new
// agent step; SIGTERM still writes the final record and exits 0, and the job's own steps are untouched.

const unavailable = slurmUnavailable();
if (unavailable) console.warn(`skipping the SLURM agents lost-link test: ${unavailable}`);

type Line = {event?: string; host?: string; state?: string; agent_pid?: number; timestamp?: string};

const lines = (text: string): Line[] =>
	text
		.split('\n')
		.filter(line => line.startsWith('{'))
		.map(line => JSON.parse(line) as Line);

describe.skipIf(unavailable !== null)('--agents: the one srun link drops', () => {
	const cluster = slurmForThisFile();
	let dir = '';
	const owned = ownedByTest(async () => {
		await cancelJobsAndWait(cluster);
		rmSync(dir, {recursive: true, force: true, maxRetries: 5, retryDelay: 200});
	});

	it('three agent kills, each reconnected; SIGTERM writes the final record and exits 0', async () => {
		const nodes = fleetNodes('traintop-slurm-lost-');
		dir = nodes.dir;
		const id = cluster.sbatch('#!/bin/bash\n#SBATCH --job-name=tt-lost\nsrun sleep 600\n', [`--output=${dir}/job.out`]);
		await until(
			() => cluster.job(id).JobState,
			state => state === 'RUNNING',
			`job ${id} running`,
			60_000,
		);
		const runDir = mkdtempSync(path.join(tmpdir(), 'traintop-slurm-lost-run-'));
		const viewer = ['--slurm-job', String(id), '--agents', '--headless', '--json', runDir, '--no-log'];
		const r = owned.run(
			startCli([...viewer, '--nvidia-smi', '/nonexistent', '--interval', '0.5', '--log-interval', '3600'], {
				env: {...cluster.env, PATH: nodes.path},
			}),
		);
		const pids = (stdout: string) => [
			...new Set(
				lines(stdout)
					.filter(l => l.event === 'node' && l.state === 'connected')
					.map(l => l.agent_pid ?? 0),
			),
		];
		// The node's first snapshot (its GPU line is said once, with it): the final record then has a sample, however
		// quickly each agent after it is killed (on a loaded machine, before its first snapshot).
		await r.waitFor(o => o.stderr.includes(`${cluster.node} GPU: not monitored`), 90_000);
		for (let kill = 1; kill <= 3; kill++) {
			await r.waitFor(o => pids(o.stdout).length === kill, 90_000);
			process.kill(pids(r.stdout()).at(-1)!, 'SIGKILL');
			await r.waitFor(o => lines(o.stdout).filter(l => l.state === 'lost').length === kill, 30_000);
		}
		await r.waitFor(o => pids(o.stdout).length === 4, 90_000);
		expect(r.stderr()).toMatch(new RegExp(`WARN node ${cluster.node} lost: agent `));
		expect(lines(r.stdout()).some(l => l.timestamp)).toBe(false);

		r.child.kill('SIGTERM');
		expect(await r.exited).toBe(0);
		const records = lines(r.stdout()).filter(l => l.timestamp);
		expect(records.map(l => l.host)).toEqual([cluster.node]);
		await until(
			() => pids(r.stdout()).filter(alive),
			left => left.length === 0,
			'the agents gone',
			20_000,
		);
		expect(cluster.job(id).JobState).toBe('RUNNING');
		rmSync(runDir, {recursive: true, force: true});
	}, 300_000);
});
