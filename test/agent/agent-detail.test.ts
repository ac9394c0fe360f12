import {readFileSync, readlinkSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, describe, expect, test} from 'vitest';
import type {DetailMessage} from '../../src/agent/protocol.js';
import {rankFromWire} from '../../src/agent/wire-tasks.js';
import type {RankProcess} from '../../src/core/types.js';
import type {DemoJob} from '../../src/demo/job.js';
import {agentMessages} from '../helpers/agent-messages.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';
import {startSmallJob} from '../helpers/small-demo-job.js';

// `traintop agent`, the real built binary on a real demo job, asked for a rank's detail on its stdin: what its node's
// /proc says of that rank, read by the agent (the argv as exec'd, the cwd, the rank's launch variables), and nothing
// for a process that is not a rank of its scan, however real.

let dir: string;
let job: DemoJob | null = null;
let agent: CliRun | null = null;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-agent-detail-'));
});
afterEach(async () => {
	agent?.child.kill('SIGKILL');
	agent = null;
	await job?.stop();
	job = null;
	await rm(dir, {recursive: true, force: true});
});

const answerTo = (run: CliRun, id: string) =>
	agentMessages(run).find((m): m is DetailMessage => m.kind === 'detail' && m.id === id);

/** The ranks of the latest snapshot that carried them. */
function scannedRanks(run: CliRun): readonly RankProcess[] {
	const withRanks = agentMessages(run).findLast(m => m.kind === 'snapshot' && m.snapshot.ranks);
	return withRanks?.kind === 'snapshot'
		? (withRanks.snapshot.ranks?.jobs.flatMap(job => job.ranks.map(rankFromWire)) ?? [])
		: [];
}

async function ask(run: CliRun, id: string, pid: number, startTime: number): Promise<DetailMessage> {
	run.child.stdin.write(`${JSON.stringify({kind: 'detail', id, host: 'node-a', pid, start_time: startTime})}\n`);
	await run.waitFor(() => answerTo(run, id) !== undefined, 5000);
	return answerTo(run, id)!;
}

describe('traintop agent: a rank detail', () => {
	test("a rank by its identity: its real argv, cwd and RANK, even with --readonly; the agent's parent: nothing", async () => {
		job = await startSmallJob(path.join(dir, 'run'), 29_861);
		const pids = await job.ranksReady();
		agent = startCli([
			'agent',
			job.runDir,
			'--pid',
			String(job.launcherPid),
			'--interval',
			'0.2',
			'--ranks-interval',
			'0.5',
			'--node-name',
			'node-a',
			'--nvidia-smi',
			'/nonexistent',
			'--readonly',
		]);
		const run = agent;
		await run.waitFor(() => scannedRanks(run).length === 2, 20_000);
		const rank1 = scannedRanks(run).find(r => r.rank === 1)!;
		expect(rank1.pid).toBe(pids.get(1));

		const answer = await ask(run, 'd1', rank1.pid, rank1.startTime);
		expect(answer).toMatchObject({kind: 'detail', host: 'node-a', id: 'd1', refused: null});
		const detail = answer.detail!;
		// What the kernel says of the rank: its argv argument by argument, its working directory.
		const argv = readFileSync(`/proc/${rank1.pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
		expect(argv.some(arg => arg.endsWith('rank.py'))).toBe(true);
		expect(detail.argv).toEqual(argv);
		expect(detail.argvExact).toBe(true);
		expect(detail.cwd).toBe(readlinkSync(`/proc/${rank1.pid}/cwd`));
		expect(detail.variables).toEqual(expect.arrayContaining([{name: 'RANK', value: '1'}]));
		// Only the whitelisted launch variables leave the node: never PATH, HOME or a token.
		const names = (detail.variables ?? []).map(v => v.name);
		expect(names).not.toContain('PATH');
		expect(names).not.toContain('HOME');
		expect(detail).toMatchObject({rank: 1, pid: rank1.pid, job: rank1.job, host: 'node-a'});

		// The agent's own parent (this test's process): a real process with a real environment, not a rank.
		const parent = await ask(run, 'd2', process.pid, 1);
		expect(parent).toEqual({
			kind: 'detail',
			host: 'node-a',
			id: 'd2',
			detail: null,
			refused: `pid ${process.pid} is not a rank on node-a at its last rank scan: an agent reads /proc for its ranks only`,
		});

		run.child.stdin.end();
		expect(await run.exited).toBe(0);
	}, 60_000);
});
