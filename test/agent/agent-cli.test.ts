import {existsSync, readFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import {type HelloMessage, PROTOCOL, type ReplyMessage, type SnapshotMessage} from '../../src/agent/protocol.js';
import {fullSnapshot} from '../../src/agent/wire-snapshot.js';
import type {Snapshot} from '../../src/core/types.js';
import type {DemoJob} from '../../src/demo/job.js';
import {allGotSigterm, endJob} from '../helpers/demo-signals.js';
import {ROOT} from '../helpers/dist.js';
import {FAKE_BIN, fakeEnv, isAlive, killAll, readInvocations} from '../helpers/fake-nvidia-smi/harness.js';
import {agentMessages} from '../helpers/agent-messages.js';
import {type CliRun, runCli, startCli} from '../helpers/run-cli.js';
import {checkpointKinds, startSmallJob} from '../helpers/small-demo-job.js';
import {until} from '../helpers/until.js';

// `traintop agent`, the real built binary on a real demo job: what it writes on stdout (protocol.ts), what it does
// with the commands on its stdin, and that it never outlives its connection.

const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';
const FAST = ['--interval', '0.2', '--ranks-interval', '0.5'];
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {version: string}).version;

let dir: string;
const jobs: DemoJob[] = [];
const agents: CliRun[] = [];
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-agent-'));
});
afterEach(async () => {
	for (const agent of agents.splice(0)) agent.child.kill('SIGKILL');
	await Promise.all(jobs.splice(0).map(job => job.stop()));
	await rm(dir, {recursive: true, force: true});
});

const snapshots = (agent: CliRun) => agentMessages(agent).filter((m): m is SnapshotMessage => m.kind === 'snapshot');
const replyTo = (agent: CliRun, id: string) =>
	agentMessages(agent).find((m): m is ReplyMessage => m.kind === 'reply' && m.id === id);

function startAgent(args: readonly string[], env: NodeJS.ProcessEnv = {}): CliRun {
	const agent = startCli(['agent', ...args], {env});
	agents.push(agent);
	return agent;
}

async function startJob(masterPort: number): Promise<DemoJob> {
	const job = await startSmallJob(path.join(dir, 'run'), masterPort);
	jobs.push(job);
	return job;
}

function send(agent: CliRun, command: object | string): void {
	agent.child.stdin.write(`${typeof command === 'string' ? command : JSON.stringify(command)}\n`);
}

describe('traintop agent on a demo job', () => {
	test('hello, snapshots that leave out unchanged ranks, a save by identity, wrong identities, other hosts, garbage; EOF ends it', async () => {
		const job = await startJob(29_851);
		const pids = await job.ranksReady();
		const calls = path.join(dir, 'nvidia-smi-calls.jsonl');
		const startedAt = Date.now();
		const agent = startAgent(
			[job.runDir, '--pid', String(job.launcherPid), ...FAST, '--node-name', 'node-a', '--nvidia-smi', FAKE_BIN],
			fakeEnv({FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_LOG: calls}),
		);
		try {
			// The first snapshot with the job's two ranks, then a few more.
			const withRanks = (m: SnapshotMessage) => (m.snapshot.ranks?.jobs[0]?.ranks.length ?? 0) === 2;
			await agent.waitFor(() => snapshots(agent).some(withRanks), 20_000);
			await agent.waitFor(() => snapshots(agent).length >= snapshots(agent).findIndex(withRanks) + 6, 10_000);

			const [hello, ...rest] = agentMessages(agent);
			expect(hello).toEqual({
				kind: 'hello',
				protocol: PROTOCOL,
				host: 'node-a',
				version: VERSION,
				pid: agent.child.pid,
				clock: expect.any(Number),
				interval_ms: 200,
				run_dir: job.runDir,
			});
			expect((hello as HelloMessage).clock).toBeGreaterThanOrEqual(startedAt);
			expect((hello as HelloMessage).clock).toBeLessThanOrEqual(Date.now());
			expect(rest.every(m => m.kind === 'snapshot' && m.host === 'node-a' && m.snapshot.host === 'node-a')).toBe(true);

			// The first snapshot sends every slow part; later ones leave out the ranks between scans.
			const sent = snapshots(agent);
			expect(Object.keys(sent[0]!.snapshot)).toEqual(expect.arrayContaining(['ranks', 'checkpoints', 'gpuProcesses']));
			const first = sent.findIndex(withRanks);
			expect(sent.slice(first + 1).some(m => !('ranks' in m.snapshot))).toBe(true);
			// The fake's H100 recording, through the agent's own nvidia-smi loop.
			await agent.waitFor(() => snapshots(agent).some(m => m.snapshot.gpu.status === 'ok'), 10_000);

			// The receiver's side: every snapshot from the first with ranks on has the job's two ranks.
			let whole: Snapshot | null = null;
			const rebuilt: Snapshot[] = [];
			for (const m of snapshots(agent)) {
				whole = fullSnapshot(m.snapshot, whole, {recentAlerts: [], recentEvents: []});
				rebuilt.push(whole);
			}
			for (const s of rebuilt.slice(first))
				expect(s.ranks?.ranks.map(r => r.pid).sort()).toEqual([...pids.values()].sort());
			expect(rebuilt.at(-1)?.checkpoints?.runDir).toBe(job.runDir);

			const rankJob = rebuilt.at(-1)!.ranks!.jobs[0]!;
			const rank = (n: number) => rankJob.ranks.find(r => r.rank === n)!;
			const identity = (n: number) => ({pid: rank(n).pid, start_time: rank(n).startTime});
			const command = {kind: 'signal', host: 'node-a', job: rankJob.id, signal: 'SIGUSR1'};

			// A command for another node (through srun every agent reads every line): no reply. Then garbage: an error
			// naming the line. Lines are answered in order, so the error says the other node's line was read.
			send(agent, {...command, id: 'elsewhere', host: 'node-b', ranks: [identity(0)]});
			send(agent, 'this is not json');
			await agent.waitFor(() => agentMessages(agent).some(m => m.kind === 'error'), 5000);
			expect(agentMessages(agent).find(m => m.kind === 'error')).toEqual({
				kind: 'error',
				host: 'node-a',
				message: 'stdin line 2 skipped (1 so far): not JSON: this is not json',
			});
			expect(replyTo(agent, 'elsewhere')).toBeUndefined();

			// Rank 1 named with a start time that is not its own: gone, nothing sent.
			send(agent, {...command, id: 'wrong', ranks: [{...identity(1), start_time: identity(1).start_time + 7}]});
			// Rank 0 by its identity: sent, and the rank really saves.
			send(agent, {...command, id: 'save', ranks: [identity(0)]});
			await agent.waitFor(() => replyTo(agent, 'save') !== undefined, 5000);
			expect(replyTo(agent, 'wrong')).toMatchObject({
				refused: null,
				results: [{rank: 1, pid: rank(1).pid, outcome: 'gone'}],
			});
			expect(replyTo(agent, 'save')).toEqual({
				kind: 'reply',
				host: 'node-a',
				id: 'save',
				refused: null,
				results: [{rank: 0, pid: rank(0).pid, outcome: 'sent', reason: null}],
			});
			await job.waitForLine(/^rank 0 step \d+ saved checkpoint_step_\d+_\d+_\d+ \(manual\)/, 10_000);
			expect(await checkpointKinds(job.runDir)).toEqual(['manual']);
			// The agent reports it too: a later snapshot's checkpoints hold it.
			await agent.waitFor(
				() => snapshots(agent).some(m => m.snapshot.checkpoints?.checkpoints.some(c => c.kind === 'manual')),
				10_000,
			);

			// Still reading after the garbage: stdin closed, it exits 0 promptly and leaves no nvidia-smi behind.
			const closedAt = Date.now();
			agent.child.stdin.end();
			expect(await agent.exited).toBe(0);
			expect(Date.now() - closedAt).toBeLessThan(5000);
			expect(agent.stderr()).toContain('traintop agent on node-a: stdin closed, exiting');
			// No memory log unless asked: every node's agent would write the same file of a shared run dir.
			expect(existsSync(path.join(job.runDir, 'traintop-memory.jsonl'))).toBe(false);
			const fakes = readInvocations(calls).map(entry => entry.pid);
			expect(fakes.length).toBeGreaterThan(0);
			await until(
				() => fakes.filter(isAlive),
				alive => alive.length === 0,
				'every fake nvidia-smi to be gone',
				3000,
			);
		} finally {
			killAll(readInvocations(calls).map(entry => entry.pid));
		}
		// Rank 1 never got the SIGUSR1 meant for an identity that was not its own (a later SIGTERM shows the order).
		expect(await endJob(job, 2)).toEqual(allGotSigterm(2));
		expect(job.output()).not.toMatch(/^rank 1 got SIGUSR1$/m);
	}, 60_000);
});

describe('traintop agent: its connection and its identity', () => {
	test('a reader that goes away (EPIPE) ends it, with stdin still open; without nvidia-smi it still runs', async () => {
		const agent = startAgent([
			...FAST,
			'--nvidia-smi',
			path.join(dir, 'no-nvidia-smi'),
			'--match',
			'no-such-job-[0-9]{40}',
		]);
		await agent.waitFor(() => snapshots(agent).some(m => m.snapshot.gpu.status === 'absent'), 10_000);
		agent.child.stdout.destroy();
		expect(await agent.exited).toBe(0);
		expect(agent.stderr()).toMatch(/traintop agent on \S+: stdout closed, exiting/);
	});

	test('SIGTERM ends it (exit 0); --readonly refuses every signal; SLURMD_NODENAME names it; --log-file logs', async () => {
		const log = path.join(dir, 'agent-memory.jsonl');
		const agent = startAgent(
			[...FAST, '--nvidia-smi', '/nonexistent', '--readonly', '--match', 'no-such-job-[0-9]{40}', '--log-file', log],
			{SLURMD_NODENAME: 'slurm-n7'},
		);
		await agent.waitFor(() => snapshots(agent).length > 0, 10_000);
		expect(agentMessages(agent)[0]).toMatchObject({kind: 'hello', host: 'slurm-n7', run_dir: null});
		send(agent, {
			kind: 'signal',
			id: 'r',
			host: 'slurm-n7',
			job: 'any',
			signal: 'SIGUSR1',
			ranks: [{pid: 2, start_time: 1}],
		});
		await agent.waitFor(() => replyTo(agent, 'r') !== undefined, 5000);
		expect(replyTo(agent, 'r')).toEqual({
			kind: 'reply',
			host: 'slurm-n7',
			id: 'r',
			results: [],
			refused: 'the agent on slurm-n7 runs with --readonly: no signal is sent',
		});
		agent.child.kill('SIGTERM');
		expect(await agent.exited).toBe(0);
		expect(agent.stderr()).toContain('traintop agent on slurm-n7: signal, exiting');
		// Closing the session wrote the last window to the log it was asked for.
		const records = readFileSync(log, 'utf8')
			.trim()
			.split('\n')
			.map(line => JSON.parse(line) as {host: string});
		expect(records.length).toBeGreaterThan(0);
		expect(records.every(r => r.host === 'slurm-n7')).toBe(true);
	});

	test('an agent carrying rank variables (as under srun --overlap) is never taken for a rank', async () => {
		const agent = startAgent(['--nvidia-smi', '/nonexistent', ...FAST, '--match', 'no-such-job-[0-9]{40}'], {
			SLURM_PROCID: '0',
			SLURM_JOB_ID: '4242',
			RANK: '0',
			WORLD_SIZE: '1',
		});
		await agent.waitFor(() => snapshots(agent).length > 0, 10_000);
		// Searched among the agent itself, inside the same SLURM job: the agent is the only candidate there.
		const {stdout, code} = await runCli(
			['ranks', '--json', '--pid', String(agent.child.pid), '--nvidia-smi', '/nonexistent'],
			{env: {SLURM_JOB_ID: '4242'}},
		);
		expect(code).toBe(0);
		expect((JSON.parse(stdout) as {ranks: unknown[]}).ranks).toEqual([]);
		agent.child.stdin.end();
		expect(await agent.exited).toBe(0);
	});

	test('bad usage: two RUN_DIRs and an empty --node-name are exit 2 with the rule', async () => {
		const two = await runCli(['agent', 'a', 'b']);
		expect(two.code).toBe(2);
		expect(two.stderr).toContain('agent takes at most one RUN_DIR (got a b)');
		const empty = await runCli(['agent', '--node-name', ' ', '--nvidia-smi', '/nonexistent']);
		expect(empty.code).toBe(2);
		expect(empty.stderr).toContain('--node-name needs a name');
	});
});
