import {randomInt, randomUUID} from 'node:crypto';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';
import {
	killRecorders,
	type Recorder,
	type RecorderJob,
	receivedBefore,
	startOutsider,
	startRecorderJob,
} from '../helpers/signal-recorder.js';
import {until} from '../helpers/until.js';

// A job-scoped signal never reaches a process that only claims the job. Each attack is a real outsider — a process
// of the same user started with `setsid` and the job's variables — that writes down every signal it receives; after
// `traintop signal save --job ID --yes` it has received none, the real job's ranks got theirs, and `traintop ranks`
// lists the outsider apart ("claims job …, not proven").

let dir: string;
const outsiders: Recorder[] = [];
const jobs: RecorderJob[] = [];
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-grouping-'));
});
afterEach(async () => {
	killRecorders(outsiders.splice(0));
	for (const job of jobs.splice(0)) job.stop();
	await rm(dir, {recursive: true, force: true});
});

const NO_GPU = ['--nvidia-smi', '/nonexistent'];

interface RanksJson {
	jobs: {
		id: string;
		identity: string;
		ranks: number[];
		proven_by: string | null;
		unproven: {pid: number; rank: number | null; membership: {proven: boolean; reason: string}}[];
	}[];
}

async function ranksJson(args: readonly string[] = []): Promise<RanksJson> {
	const {code, stdout, stderr} = await runCli(['ranks', '--json', ...args, ...NO_GPU], {timeoutMs: 60_000});
	expect(code, stderr).toBe(0);
	return JSON.parse(stdout) as RanksJson;
}

async function outsider(name: string, env: Record<string, string>): Promise<Recorder> {
	const recorder = await startOutsider(path.join(dir, name), env);
	outsiders.push(recorder);
	return recorder;
}

async function job(ranks: {name: string; env: Record<string, string>}[]): Promise<RecorderJob> {
	const started = await startRecorderJob(ranks.map(r => ({log: path.join(dir, r.name), env: r.env})));
	jobs.push(started);
	return started;
}

/** The ranks received SIGUSR1 (and nothing else); waited for, since the send returns before delivery. */
async function gotSave(ranks: readonly Recorder[]): Promise<void> {
	for (const rank of ranks) await until(rank.received, got => got.length > 0, `a signal to pid ${rank.pid}`, 30_000);
	expect(ranks.map(r => r.received())).toEqual(ranks.map(() => ['SIGUSR1']));
}

describe('a process with the job’s variables is not one of its ranks', () => {
	test('rendezvous variables from another session: listed apart, and signal --job rdzv:… never reaches it', async () => {
		// A port no other test's job uses: the job's id must be ours alone on this busy host.
		const port = String(randomInt(20_000, 60_000));
		const rdzv = {MASTER_ADDR: '127.0.0.9', MASTER_PORT: port, WORLD_SIZE: '2'};
		const real = await job([
			{name: 'rank0', env: {...rdzv, RANK: '0', LOCAL_RANK: '0'}},
			{name: 'rank1', env: {...rdzv, RANK: '1', LOCAL_RANK: '1'}},
		]);
		const victim = await outsider('victim', {...rdzv, RANK: '1'});
		const id = `rdzv:127.0.0.9:${port}`;

		const sent = await runCli(['signal', 'save', '--job', id, '--yes', ...NO_GPU], {timeoutMs: 60_000});
		expect(sent.code, sent.stderr).toBe(0);
		await gotSave(real.ranks);
		expect(await receivedBefore(victim)).toEqual(['SIGUSR2']);
		expect(sent.stderr).toContain(`SIGUSR1 (save) to 2 of 2 ranks of job ${id}`);

		const listed = await ranksJson(['--job', id]);
		expect(listed.jobs).toHaveLength(1);
		expect(listed.jobs[0]).toMatchObject({id, identity: 'rendezvous', proven_by: 'launcher-tree'});
		const byNumber = (x: number, y: number) => x - y;
		expect(listed.jobs[0]!.ranks.sort(byNumber)).toEqual(real.ranks.map(r => r.pid).sort(byNumber));
		expect(listed.jobs[0]!.unproven).toEqual([
			{
				pid: victim.pid,
				ppid: expect.any(Number),
				rank: 1,
				cmd: expect.stringContaining('signal-recorder.py'),
				membership: {proven: false, reason: 'orphan'},
			},
		]);
		const text = await runCli(['ranks', '--job', id, ...NO_GPU], {timeoutMs: 60_000});
		expect(text.stdout).toContain(`pid ${victim.pid} (rank 1) claims job ${id}, not proven:`);
		expect(text.stdout).toMatch(/2 ranks \(world 2\)/);

		// --pid of the real launcher: its tree, where the outsider is not.
		const byPid = await runCli(['signal', 'save', '--pid', String(real.launcher.pid), '--yes', ...NO_GPU], {
			timeoutMs: 60_000,
		});
		expect(byPid.code, byPid.stderr).toBe(0);
		expect(await receivedBefore(victim, 'SIGTERM')).toEqual(['SIGUSR2', 'SIGTERM']);
	}, 120_000);

	test('SLURM variables set by hand: not a task of slurm:J.S, which no job here is; signal --job slurm:J.S sends nothing', async () => {
		const jobId = String(randomInt(100_000_000, 900_000_000));
		const victim = await outsider('victim', {SLURM_JOB_ID: jobId, SLURM_STEP_ID: '0', SLURM_PROCID: '1'});
		const sent = await runCli(['signal', 'save', '--job', `slurm:${jobId}.0`, '--yes', ...NO_GPU], {
			timeoutMs: 60_000,
		});
		expect(await receivedBefore(victim)).toEqual(['SIGUSR2']);
		expect(sent.code).toBe(2);
		expect(sent.stderr).toContain(`no job is 'slurm:${jobId}.0'; nothing sent. Jobs found:`);
		const all = await ranksJson();
		const own = all.jobs.filter(j => j.ranks.includes(victim.pid));
		// No slurmstepd of that step above it: a job of its own, with no SLURM ids.
		expect(own.map(j => [j.id, j.identity])).toEqual([[`pid:${victim.pid}`, 'process']]);
		expect(all.jobs.map(j => j.id)).not.toContain(`slurm:${jobId}.0`);
	}, 120_000);

	test('orphaned ranks of two runs (run id "none", parent PID 1) are two jobs: one signalled, the other not', async () => {
		const orphanEnv = {
			TORCHELASTIC_RUN_ID: 'none',
			RANK: '0',
			LOCAL_RANK: '0',
			WORLD_SIZE: '1',
			MASTER_ADDR: '127.0.0.1',
			MASTER_PORT: String(randomInt(20_000, 60_000)),
		};
		const a = await outsider('orphan-a', orphanEnv);
		const b = await outsider('orphan-b', orphanEnv);
		const all = await ranksJson();
		const theirs = all.jobs.filter(j => j.ranks.some(pid => pid === a.pid || pid === b.pid));
		// Oldest first: a was started before b.
		expect(theirs.map(j => [j.id, j.ranks])).toEqual([
			[`pid:${a.pid}`, [a.pid]],
			[`pid:${b.pid}`, [b.pid]],
		]);
		// No internal key in any id (`…:1/elastic|none|1` before).
		for (const j of all.jobs) expect(j.id).not.toMatch(/[|/]/);

		const sent = await runCli(['signal', 'save', '--job', `pid:${a.pid}`, '--yes', ...NO_GPU], {timeoutMs: 60_000});
		expect(sent.code, sent.stderr).toBe(0);
		await gotSave([a]);
		expect(await receivedBefore(b)).toEqual(['SIGUSR2']);
	}, 120_000);

	test('--job with a part of an id (the port of rdzv:127.0.0.1:PORT) names no job: exit 2, the jobs listed, nothing sent', async () => {
		const port = String(randomInt(20_000, 60_000));
		const rdzv = {MASTER_ADDR: '127.0.0.1', MASTER_PORT: port, WORLD_SIZE: '1'};
		const real = await job([{name: 'rank0', env: {...rdzv, RANK: '0'}}]);
		const tag = `rdzv:127.0.0.1:${port}`;
		const sent = await runCli(['signal', 'save', '--job', port, '--yes', ...NO_GPU], {timeoutMs: 60_000});
		expect(await receivedBefore(real.ranks[0]!)).toEqual(['SIGUSR2']);
		expect(sent.code).toBe(2);
		expect(sent.stderr).toContain(`no job is '${port}'; nothing sent. Jobs found:`);
		expect(sent.stderr).toContain(`  ${tag}  1 rank (world 1)`);
		const listed = await runCli(['ranks', '--job', port, ...NO_GPU], {timeoutMs: 60_000});
		expect(listed.code).toBe(2);
		expect(listed.stderr).toContain(`--job ${port}: no such job (found: `);
		// The whole id still names it.
		const whole = await runCli(['signal', 'save', '--job', tag, '--yes', ...NO_GPU], {timeoutMs: 60_000});
		expect(whole.code, whole.stderr).toBe(0);
		await until(real.ranks[0]!.received, got => got.length > 1, 'the save to arrive', 30_000);
		expect(real.ranks[0]!.received()).toEqual(['SIGUSR2', 'SIGUSR1']);
	}, 120_000);
});

test('--match takes Python processes and ranks, not `tail` or `sleep` whose command lines match too', async () => {
	const tag = `tt-match-${randomUUID()}`;
	const {spawn} = await import('node:child_process');
	const others = [
		spawn('tail', ['-f', '/dev/null', tag], {stdio: 'ignore'}),
		spawn('sleep', ['600', tag], {stdio: 'ignore'}),
	];
	try {
		const python = await startOutsider(path.join(dir, 'python'), {}, tag);
		outsiders.push(python);
		const listed = await ranksJson(['--match', tag]);
		expect(listed.jobs.flatMap(j => j.ranks)).toEqual([python.pid]);
	} finally {
		for (const child of others) child.kill('SIGKILL');
	}
}, 60_000);
