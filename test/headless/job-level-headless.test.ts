import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {PassThrough} from 'node:stream';
import {afterEach, describe, expect, it} from 'vitest';
import {PROTOCOL} from '../../src/agent/protocol.js';
import {wireSnapshot} from '../../src/agent/wire-snapshot.js';
import {DEFAULT_SETTINGS} from '../../src/config/schema.js';
import {slurmState} from '../../src/slurm/scheduler-state.js';
import type {SlurmView} from '../../src/slurm/types.js';
import type {JobEvent} from '../../src/core/types.js';
import {runHeadless} from '../../src/headless/run.js';
import {openSession} from '../../src/session/session.js';
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

function event(kind: JobEvent['kind'], job: string, text: string, time: number): JobEvent {
	return {time, kind, job, rank: kind === 'rank-exited' ? 0 : null, pid: null, level: 'warn', text};
}

/** What `host`'s agent says: its hello, then one snapshot with the job as its controller read it at `readAt`. */
function agentLines(host: string, now: number, readAt: number): string {
	const view: SlurmView = {status: 'ok', job: slurmJob(now, {restarts: 1, timeLeftS: 480}), readAt};
	const snapshot = snapshotOf(host, now, {
		scheduler: slurmState(view),
		events: [
			event('requeued', 'slurm:16', 'SLURM job 16 requeued (restart 1)', now),
			event('rank-exited', 'slurm:16.0', `rank 0 on ${host} exited`, now),
		],
	});
	const hello = {kind: 'hello', protocol: PROTOCOL, host, version: '0.1.0', pid: 4000, clock: now, interval_ms: 500};
	const message = {kind: 'snapshot', host, snapshot: wireSnapshot(snapshot, null)};
	return `${JSON.stringify({...hello, run_dir: null})}\n${JSON.stringify(message)}\n`;
}

/** An agent link whose agent says its lines and then waits for its stdin to close, as an agent does. */
function agent(host: string, lines: string) {
	const file = path.join(dir, `${host}.jsonl`);
	writeFileSync(file, lines);
	return {nodes: [host], argv: ['sh', '-c', `cat '${file}'; exec cat >/dev/null`]};
}

describe('headless over many nodes: the job once at the top', () => {
	it("says the SLURM job's time left and its requeue once, from the freshest node, not once per node", async () => {
		dir = mkdtempSync(path.join(tmpdir(), 'traintop-job-level-'));
		const now = Date.now();
		const session = await openSession({
			settings: {...DEFAULT_SETTINGS, interval: 0.5, logInterval: 3600, log: false},
			runDir: null,
			connections: [agent('a', agentLines('a', now, now - 2000)), agent('b', agentLines('b', now, now))],
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
