import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PassThrough} from 'node:stream';
import {afterEach, describe, expect, it} from 'vitest';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {slurmState} from '../../src/slurm/scheduler-state.js';
import type {SlurmView} from '../../src/slurm/types.js';
import {runHeadless} from '../../src/headless/run.js';
import {openSession} from '../../src/session/session.js';
import {agentEvent, scriptedAgent} from '../helpers/scripted-agent.js';
import {slurmJob} from '../helpers/slurm-job.js';
import {until} from '../helpers/until.js';
import {snapshotOf} from '../ui/fleet/fleet-fixtures.js';

// Many nodes seeing one SLURM job: each node's agent reads the controller and reports the same job (and the same
// requeue), so the headless view says the job once, at the top, not once per node; a rank's event stays its node's.
// Real agent links (child processes speaking the agent protocol), the real Fleet, session and printer.

let dir = '';
afterEach(() => {
	if (dir) rmSync(dir, {recursive: true, force: true});
	dir = '';
});

/** `host`'s agent: its hello, then one snapshot with the job as its controller read it at `readAt`. */
function agent(host: string, now: number, readAt: number) {
	const view: SlurmView = {status: 'ok', job: slurmJob(now, {restarts: 1, timeLeftS: 480}), readAt};
	const snapshot = snapshotOf(host, now, {
		scheduler: slurmState(view),
		events: [
			agentEvent('requeued', 'slurm:16', 'SLURM job 16 requeued (restart 1)', now),
			agentEvent('rank-exited', 'slurm:16.0', `rank 0 on ${host} exited`, now),
		],
	});
	return scriptedAgent(dir, host, snapshot, 500);
}

describe('headless over many nodes: the job once at the top', () => {
	it("says the SLURM job's time left and its requeue once, from the freshest node, not once per node", async () => {
		dir = mkdtempSync(path.join(tmpdir(), 'traintop-job-level-'));
		const now = Date.now();
		const session = await openSession({
			settings: {...DEFAULT_SETTINGS, interval: 0.5, logInterval: 3600, log: false},
			runDir: null,
			connections: [agent('a', now, now - 2000), agent('b', now, now)],
		});
		const stdout = new PassThrough();
		const stderr = new PassThrough();
		let out = '';
		let err = '';
		stdout.on('data', chunk => (out += chunk));
		stderr.on('data', chunk => (err += chunk));
		const stop = new AbortController();
		const running = runHeadless(session, {json: true, stdout, stderr, signal: stop.signal});
		await until(
			() => err,
			text => /rank 0 on a exited/.test(text) && /rank 0 on b exited/.test(text),
			"both nodes' snapshots",
			30_000,
		);
		stop.abort();
		await running;

		const records = out
			.split('\n')
			.filter(line => line !== '')
			.map(line => JSON.parse(line) as Record<string, unknown>);
		const slurm = records.filter(r => r.event === 'slurm');
		expect(slurm).toHaveLength(1);
		expect(slurm[0]).not.toHaveProperty('host');
		expect(slurm[0]).toMatchObject({status: 'ok', job: {job_id: '16', time_left_s: 480, restarts: 1}});
		const requeued = records.filter(r => r.event === 'requeued');
		expect(requeued).toHaveLength(1);
		expect(requeued[0]).not.toHaveProperty('host');
		// A rank's exit is its node's: said per node, named after it.
		expect(records.filter(r => r.event === 'rank-exited').map(r => r.host)).toEqual(['a', 'b']);

		const lines = err.split('\n');
		expect(lines.filter(line => /SLURM job 16 train · RUNNING/.test(line))).toEqual([
			expect.stringMatching(/^traintop: \d{4}-\d\d-\d\d \S+ SLURM job 16 train · RUNNING .* 8 m 00 s left/),
		]);
		expect(lines.filter(line => /requeued \(restart 1\)/.test(line))).toEqual([
			expect.stringMatching(/^traintop: \d{4}-\d\d-\d\d \S+ WARN SLURM job 16 requeued/),
		]);
		expect(lines.filter(line => /rank 0 on . exited/.test(line))).toEqual([
			expect.stringMatching(/^traintop: a \d{4}-/),
			expect.stringMatching(/^traintop: b \d{4}-/),
		]);
	}, 60_000);
});
